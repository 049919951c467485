import { Toast } from 'radix-ui';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import styles from './ui.module.css';

/** A button in the toast (Undo): `altText` tells screen-reader users how to do the same without it. */
export interface ToastAction {
  label: string;
  altText: string;
  onAct: () => void;
}

interface ToastMessage {
  id: number;
  text: string;
  kind: 'info' | 'error';
  action?: ToastAction;
}

type ShowToast = (text: string, kind?: ToastMessage['kind'], action?: ToastAction) => void;

/** How long a toast with an action stays: long enough to notice a mistake and press Undo. */
const ACTION_TOAST_MS = 7000;

const ToastContext = createContext<ShowToast>(() => undefined);

/** The one toast: short confirmations of actions taken by keyboard or elsewhere on the page. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<ToastMessage[]>([]);
  const show = useCallback<ShowToast>((text, kind = 'info', action) => {
    setMessages((current) => [...current.slice(-2), { id: Date.now() + Math.random(), text, kind, action }]);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      <Toast.Provider duration={4000} swipeDirection="right">
        {children}
        {messages.map((message) => (
          <Toast.Root
            key={message.id}
            className={`${styles.toast} ${message.kind === 'error' ? styles.toastError : ''}`}
            type={message.kind === 'error' || message.action ? 'foreground' : 'background'}
            duration={message.action ? ACTION_TOAST_MS : undefined}
            onOpenChange={(open) => {
              if (!open) setMessages((current) => current.filter((m) => m.id !== message.id));
            }}
          >
            <Toast.Description>{message.text}</Toast.Description>
            {message.action && (
              <Toast.Action altText={message.action.altText} asChild>
                <button type="button" className={styles.toastAction} onClick={message.action.onAct}>
                  {message.action.label}
                </button>
              </Toast.Action>
            )}
          </Toast.Root>
        ))}
        <Toast.Viewport className={styles.toastViewport} label="Notifications ({hotkey})" />
      </Toast.Provider>
    </ToastContext.Provider>
  );
}

export function useToast() {
  return useContext(ToastContext);
}
