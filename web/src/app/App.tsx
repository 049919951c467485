import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Tooltip } from 'radix-ui';
import { createBrowserRouter, Navigate, RouterProvider, type RouteObject } from 'react-router';
import { ApiError } from '../api/client';
import { authKeys } from '../auth/queries';
import { lazy, Suspense, type ComponentType } from 'react';
import { Loading } from '../ui/States';
import { ToastProvider } from '../ui/Toast';
import { Layout } from './Layout';
import { NotFoundPage } from './NotFoundPage';
import { RequireAuth } from './RequireAuth';

/**
 * A 401 from any call means the session ended (signed out elsewhere, expired): back to sign-in. A
 * 403 naming two-factor enrolment means the team requires it of this member and they have none:
 * to the profile page, where they set it up (the relay refuses every other page's data until then).
 */
function onApiError(error: Error) {
  if (error instanceof ApiError && error.status === 401) queryClient.setQueryData(authKeys.me, null);
  if (error instanceof ApiError && error.status === 403 && TWO_FACTOR_ENROLMENT.test(error.message) && location.pathname !== '/account') {
    void router.navigate('/account', { replace: true });
  }
}

const TWO_FACTOR_ENROLMENT = /^Two-factor sign-in is required: set it up/;

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: onApiError }),
  mutationCache: new MutationCache({ onError: onApiError }),
  defaultOptions: {
    queries: {
      // A refused or missing resource will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      staleTime: 10_000,
      refetchOnWindowFocus: true,
    },
  },
});

/**
 * A page in a chunk of its own, loaded when its route is first shown: the first screen downloads the
 * shell and its own page, not all of them. `handle.preload` lets the router start the first
 * page's download at once, alongside the session check, rather than after it (see below).
 */
function lazyPage<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K): Pick<RouteObject, 'element' | 'handle'> {
  const Page = lazy(() => load().then((module): { default: ComponentType } => ({ default: module[name] })));
  return {
    element: (
      <Suspense fallback={<Loading />}>
        <Page />
      </Suspense>
    ),
    handle: { preload: load },
  };
}

const inbox = lazyPage(() => import('../builds/inbox/InboxPage'), 'InboxPage');
const devicePopout = lazyPage(() => import('../devices/DeviceWall'), 'DevicePopout');

const router = createBrowserRouter([
  { path: '/signin', ...lazyPage(() => import('../auth/SignInPage'), 'SignInPage') },
  { path: '/invite', ...lazyPage(() => import('../auth/TokenPages'), 'InvitePage') },
  { path: '/reset-password', ...lazyPage(() => import('../auth/TokenPages'), 'ResetPasswordPage') },
  {
    path: '/devices/:sessionId/screen',
    element: <RequireAuth>{devicePopout.element}</RequireAuth>,
    handle: devicePopout.handle,
  },
  {
    element: (
      <RequireAuth>
        <Layout />
      </RequireAuth>
    ),
    children: [
      { path: '/', element: <Navigate to="/builds" replace />, handle: inbox.handle },
      { path: '/builds', ...inbox },
      { path: '/builds/:id', ...lazyPage(() => import('../builds/page/BuildPage'), 'BuildPage') },
      { path: '/apps', ...lazyPage(() => import('../apps/AppsPage'), 'AppsPage') },
      { path: '/account', ...lazyPage(() => import('../auth/AccountPage'), 'AccountPage') },
      { path: '/integrations', ...lazyPage(() => import('../integrations/IntegrationsPage'), 'IntegrationsPage') },
      // Webhooks and forges lived here before the Integrations page (issue 40 item 7): old links still land.
      { path: '/webhooks', element: <Navigate to="/integrations" replace /> },
      { path: '/tokens', ...lazyPage(() => import('../tokens/TokensPage'), 'TokensPage') },
      { path: '/team', ...lazyPage(() => import('../team/TeamPage'), 'TeamPage') },
      { path: '/settings', ...lazyPage(() => import('../team/SettingsPage'), 'SettingsPage') },
      { path: '/relay', ...lazyPage(() => import('../relay/RelayPage'), 'RelayPage') },
      { path: '/audit', ...lazyPage(() => import('../audit/AuditPage'), 'AuditPage') },
      { path: '/agents', ...lazyPage(() => import('../agents/AgentsPage'), 'AgentsPage') },
      { path: '/devices', ...lazyPage(() => import('../devices/DevicesPage'), 'DevicesPage') },
      { path: '/devices/wall', ...lazyPage(() => import('../devices/DeviceWall'), 'DeviceWall') },
      { path: '/devices/:sessionId', ...lazyPage(() => import('../devices/DevicePage'), 'DevicePage') },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);

// The page of the address the app was opened at starts downloading now, while RequireAuth checks
// the session; its lazy component then finds the module already loaded (or on its way).
for (const match of router.state.matches) (match.route.handle as { preload?: () => void } | undefined)?.preload?.();

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <Tooltip.Provider delayDuration={300}>
        <ToastProvider>
          <RouterProvider router={router} />
        </ToastProvider>
      </Tooltip.Provider>
    </QueryClientProvider>
  );
}
