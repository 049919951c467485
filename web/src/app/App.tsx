import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Tooltip } from 'radix-ui';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError } from '../api/client';
import { authKeys } from '../auth/queries';
import { AppsPage } from '../apps/AppsPage';
import { AccountPage } from '../auth/AccountPage';
import { SignInPage } from '../auth/SignInPage';
import { InvitePage, ResetPasswordPage } from '../auth/TokenPages';
import { BuildPage } from '../builds/BuildPage';
import { InboxPage } from '../builds/InboxPage';
import { RelayPage } from '../relay/RelayPage';
import { SettingsPage } from '../team/SettingsPage';
import { TeamPage } from '../team/TeamPage';
import { TokensPage } from '../tokens/TokensPage';
import { ToastProvider } from '../ui/Toast';
import { WebhooksPage } from '../webhooks/WebhooksPage';
import { AgentsPage } from '../agents/AgentsPage';
import { DevicesPage } from '../devices/DevicesPage';
import { DevicePage } from '../devices/DevicePage';
import { DevicePopout, DeviceWall } from '../devices/DeviceWall';
import { Layout } from './Layout';
import { NotFoundPage } from './NotFoundPage';
import { RequireAuth } from './RequireAuth';

/** A 401 from any call means the session ended (signed out elsewhere, expired): back to sign-in. */
function onApiError(error: Error) {
  if (error instanceof ApiError && error.status === 401) queryClient.setQueryData(authKeys.me, null);
}

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

const router = createBrowserRouter([
  { path: '/signin', element: <SignInPage /> },
  { path: '/invite', element: <InvitePage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  {
    path: '/devices/:sessionId/screen',
    element: (
      <RequireAuth>
        <DevicePopout />
      </RequireAuth>
    ),
  },
  {
    element: (
      <RequireAuth>
        <Layout />
      </RequireAuth>
    ),
    children: [
      { path: '/', element: <Navigate to="/builds" replace /> },
      { path: '/builds', element: <InboxPage /> },
      { path: '/builds/:id', element: <BuildPage /> },
      { path: '/apps', element: <AppsPage /> },
      { path: '/account', element: <AccountPage /> },
      { path: '/webhooks', element: <WebhooksPage /> },
      { path: '/tokens', element: <TokensPage /> },
      { path: '/team', element: <TeamPage /> },
      { path: '/settings', element: <SettingsPage /> },
      { path: '/relay', element: <RelayPage /> },
      { path: '/agents', element: <AgentsPage /> },
      { path: '/devices', element: <DevicesPage /> },
      { path: '/devices/wall', element: <DeviceWall /> },
      { path: '/devices/:sessionId', element: <DevicePage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);

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
