import { createContext, useContext, type ReactNode } from 'react';
import type { Schemas } from '../api/client';
import { Navigate, useLocation } from 'react-router';
import { useMe } from '../auth/queries';
import { Button } from '../ui/Button';
import { FormError } from '../ui/Field';
import { CenterMessage, Loading } from '../ui/States';

const CurrentMember = createContext<Schemas['MeResponse'] | null>(null);

/** The signed-in member, for pages under RequireAuth (they never render without one). */
export function useCurrentMember(): Schemas['MeResponse'] {
  const me = useContext(CurrentMember);
  if (!me) throw new Error('useCurrentMember outside RequireAuth');
  return me;
}

/**
 * Signed-in pages: nothing is rendered until /auth/me answered, so a signed-in member never sees
 * a flash of the sign-in page and a signed-out visitor never sees a flash of the dashboard.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <Loading />;
  if (me.isError) {
    return (
      <CenterMessage>
        <div>
          <FormError error={me.error} />
          <p>
            <Button onClick={() => me.refetch()}>Try again</Button>
          </p>
        </div>
      </CenterMessage>
    );
  }
  if (!me.data) {
    const next = location.pathname + location.search;
    return <Navigate to={`/signin${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}`} replace />;
  }
  return <CurrentMember.Provider value={me.data}>{children}</CurrentMember.Provider>;
}
