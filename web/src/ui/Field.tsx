import { Button } from './Button';
import { useId, type InputHTMLAttributes, type Ref, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import styles from './ui.module.css';

interface FieldFrame {
  label: string;
  hint?: ReactNode;
  /** The API's error for this field, shown under it and announced with it. */
  error?: string | null;
  hideLabel?: boolean;
}

function Frame({ id, label, hint, error, hideLabel, children }: FieldFrame & { id: string; children: ReactNode }) {
  return (
    <div className={styles.field}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : styles.label}>
        {label}
      </label>
      {children}
      {hint && (
        <span id={`${id}-hint`} className={styles.hint}>
          {hint}
        </span>
      )}
      {error && (
        <p id={`${id}-error`} className={styles.fieldError} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

/** A labelled input; the one form pattern (label above, hint and API error below). */
export function TextField({
  label,
  hint,
  error,
  hideLabel,
  id: given,
  className,
  ...input
}: FieldFrame & InputHTMLAttributes<HTMLInputElement> & { ref?: Ref<HTMLInputElement> }) {
  const generated = useId();
  const id = given ?? generated;
  return (
    <Frame id={id} label={label} hint={hint} error={error} hideLabel={hideLabel}>
      <input
        id={id}
        className={[styles.input, className].filter(Boolean).join(' ')}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        {...input}
      />
    </Frame>
  );
}

export function TextArea({ label, hint, error, hideLabel, id: given, ...input }: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const generated = useId();
  const id = given ?? generated;
  return (
    <Frame id={id} label={label} hint={hint} error={error} hideLabel={hideLabel}>
      <textarea
        id={id}
        className={styles.input}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
        {...input}
      />
    </Frame>
  );
}

export function SelectField({ label, hint, error, hideLabel, id: given, children, ...select }: FieldFrame & SelectHTMLAttributes<HTMLSelectElement>) {
  const generated = useId();
  const id = given ?? generated;
  return (
    <Frame id={id} label={label} hint={hint} error={error} hideLabel={hideLabel}>
      <select id={id} className={styles.input} aria-describedby={describedBy(id, hint, error)} {...select}>
        {children}
      </select>
    </Frame>
  );
}

/** An error of the whole form (or of an action), where it happened. */
export function FormError({ error }: { error?: { message: string } | null }) {
  if (!error) return null;
  return (
    <p className={styles.formError} role="alert">
      {error.message}
    </p>
  );
}

export const formClass = styles.form;
export const cardClass = styles.card;

/** The end of a form: its own error (one no field took) and the submit button, disabled while pending. */
export function FormEnd({ error, pending, label, pendingLabel }: { error?: { message: string } | null; pending: boolean; label: string; pendingLabel: string }) {
  return (
    <>
      <FormError error={error} />
      <div>
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? pendingLabel : label}
        </Button>
      </div>
    </>
  );
}
