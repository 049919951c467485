import type { ReactNode } from 'react';
import { TextField } from '../ui/Field';

interface CredentialFieldProps {
  value: string;
  onChange: (value: string) => void;
  error?: string | null;
  autoFocus?: boolean;
}

export function EmailField({ value, onChange, error, autoFocus }: CredentialFieldProps) {
  return (
    <TextField
      label="E-mail"
      type="email"
      autoComplete="username"
      required
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
      autoFocus={autoFocus}
    />
  );
}

/** A password field; `isNew` asks the browser's password manager for a new one and states the rule. */
export function PasswordField({
  value,
  onChange,
  error,
  autoFocus,
  label = 'Password',
  isNew = false,
  hint,
}: CredentialFieldProps & { label?: string; isNew?: boolean; hint?: ReactNode }) {
  return (
    <TextField
      label={label}
      type="password"
      autoComplete={isNew ? 'new-password' : 'current-password'}
      required
      minLength={isNew ? 8 : undefined}
      hint={hint ?? (isNew ? 'At least 8 characters.' : undefined)}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
      autoFocus={autoFocus}
    />
  );
}
