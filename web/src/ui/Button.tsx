import type { ButtonHTMLAttributes } from 'react';
import styles from './ui.module.css';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'default' | 'primary' | 'danger';
  size?: 'default' | 'small';
}

/** Every button of the dashboard (`type="button"` unless told, so none submits a form by accident). */
export function Button({ variant = 'default', size = 'default', className, type = 'button', ...rest }: ButtonProps) {
  const classes = [styles.button, variant !== 'default' && styles[variant], size === 'small' && styles.small, className]
    .filter(Boolean)
    .join(' ');
  return <button type={type} className={classes} {...rest} />;
}

export const buttonClass = styles.button;
export const primaryButtonClass = `${styles.button} ${styles.primary}`;
