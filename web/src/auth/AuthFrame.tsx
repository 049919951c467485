import type { ReactNode } from 'react';
import styles from './auth.module.css';
import { useTeamBrand } from './queries';

/**
 * The centred card of the pages a visitor sees before being signed in, under the team's name and
 * logo (the relay's mark until they load, or when the team has no logo).
 */
export function AuthFrame({ title, children }: { title: string; children: ReactNode }) {
  const brand = useTeamBrand();
  return (
    <main className={styles.page}>
      <div className={styles.panel}>
        <div className={styles.brand}>
          <img src={brand.data?.logo_data_url ?? '/favicon.svg'} alt="" /> {brand.data?.team_name ?? 'svc relay'}
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

export const authStyles = styles;
