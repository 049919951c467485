import { Toast } from 'radix-ui';
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import styles from './ui.module.css';

interface ToastMessage {
  id: number;
  text: string;
  kind: 'info' | 'error';
}

const ToastContext = createContext<(text: string, kind?: ToastMessage['kind']) => void>(() => undefined);

/** The one toast: short confirmations of actions taken by keyboard or elsewhere on the page. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [messages, setMessages] = useState<ToastMessage[]>([]);
  const show = useCallback((text: string, kind: ToastMessage['kind'] = 'info') => {
    setMessages((current) => [...current.slice(-2), { id: Date.now() + Math.random(), text, kind }]);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      <Toast.Provider duration={4000} swipeDirection="right">
        {children}
        {messages.map((message) => (
          <Toast.Root
            key={message.id}
            className={`${styles.toast} ${message.kind === 'error' ? styles.toastError : ''}`}
            type={message.kind === 'error' ? 'foreground' : 'background'}
            onOpenChange={(open) => {
              if (!open) setMessages((current) => current.filter((m) => m.id !== message.id));
            }}
          >
            <Toast.Description>{message.text}</Toast.Description>
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
