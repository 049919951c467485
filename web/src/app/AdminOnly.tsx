import type { ReactNode } from 'react';
import { Empty } from '../ui/States';
import { useCurrentMember } from './RequireAuth';

/** Pages only Admins use (spec §5.6): others get a sentence instead of a page of 403s. */
export function AdminOnly({ what, children }: { what: string; children: ReactNode }) {
  const me = useCurrentMember();
  if (me.role !== 'Admin') return <Empty>Only Admins can see {what}. Your role is {me.role}.</Empty>;
  return <>{children}</>;
}
