import type { ReactNode } from 'react';
import styles from './auth.module.css';

/** The centred card of the pages a visitor sees before being signed in. */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className={styles.page}>
      <div className={styles.panel}>
        <div className={styles.brand}>
          <img src="/favicon.svg" alt="" /> svc relay
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

export const authStyles = styles;
