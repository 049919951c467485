import { useCurrentMember } from './RequireAuth';
import { DropdownMenu } from 'radix-ui';
import { useState } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { canWrite, useLogout, useSettings } from '../auth/queries';
import { useLiveEvents } from './live-events';
import { Button } from '../ui/Button';
import { menuClass, menuItemClass } from '../ui/Menu';
import { Avatar } from '../ui/Avatar';
import { useToast } from '../ui/Toast';
import { ShortcutsDialog, useGlobalShortcut } from './ShortcutsDialog';
import styles from './layout.module.css';

export function Layout() {
  const me = useCurrentMember();
  const settings = useSettings(true);
  const logout = useLogout();
  const navigate = useNavigate();
  const toast = useToast();
  const [helpOpen, setHelpOpen] = useState(false);
  useLiveEvents();
  useGlobalShortcut('?', () => setHelpOpen(true));
  const teamName = settings.data?.team_name || 'svc relay';
  const name = me.displayName || me.email.split('@')[0];
  return (
    <div className={styles.shell}>
      <a href="#main" className={styles.skip}>
        Skip to content
      </a>
      <header className={styles.header}>
        <NavLink to="/builds" className={styles.team} aria-label={`${teamName}: builds`}>
          <img className={styles.logo} src={settings.data?.logo_url ?? '/favicon.svg'} alt="" />
          <span>{teamName}</span>
        </NavLink>
        <nav className={styles.nav} aria-label="Main">
          <NavLink to="/builds">Builds</NavLink>
          <NavLink to="/apps">Apps</NavLink>
          <NavLink to="/devices">Devices</NavLink>
          <NavLink to="/agents">Agents</NavLink>
          {canWrite(me.role) && <NavLink to="/integrations">Integrations</NavLink>}
        </nav>
        <Button
          size="small"
          className={styles.helpButton}
          aria-label="Keyboard shortcuts"
          aria-keyshortcuts="?"
          onClick={() => setHelpOpen(true)}
        >
          ?
        </Button>
        <DropdownMenu.Root>
          <DropdownMenu.Trigger asChild>
            <button type="button" className={styles.userButton} aria-label={`Account: ${name}`}>
              <Avatar name={name} src={me.avatarUrl} className={styles.avatar} />
              <span className={styles.userName}>{name}</span>
            </button>
          </DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content className={menuClass} align="end" sideOffset={6}>
              <DropdownMenu.Label className={styles.menuLabel}>
                {me.email} · {me.role}
              </DropdownMenu.Label>
              <DropdownMenu.Item className={menuItemClass} onSelect={() => navigate('/account')}>
                Profile and password
              </DropdownMenu.Item>
              <DropdownMenu.Item className={menuItemClass} onSelect={() => navigate('/tokens')}>
                Access tokens
              </DropdownMenu.Item>
              {/* Admin pages live in this menu, so the header keeps its few sections at 375 px. */}
              {me.role === 'Admin' && (
                <>
                  <DropdownMenu.Separator className={styles.menuSeparator} />
                  <DropdownMenu.Item className={menuItemClass} onSelect={() => navigate('/team')}>
                    Team
                  </DropdownMenu.Item>
                  <DropdownMenu.Item className={menuItemClass} onSelect={() => navigate('/settings')}>
                    Team settings
                  </DropdownMenu.Item>
                  <DropdownMenu.Item className={menuItemClass} onSelect={() => navigate('/relay')}>
                    Relay
                  </DropdownMenu.Item>
                  <DropdownMenu.Item className={menuItemClass} onSelect={() => navigate('/audit')}>
                    Audit log
                  </DropdownMenu.Item>
                </>
              )}
              <DropdownMenu.Separator className={styles.menuSeparator} />
              <DropdownMenu.Item
                className={menuItemClass}
                onSelect={() =>
                  logout.mutate(undefined, {
                    onSuccess: () => navigate('/signin', { replace: true }),
                    onError: (err) => toast(err.message, 'error'),
                  })
                }
              >
                Sign out
              </DropdownMenu.Item>
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
      </header>
      <main id="main" className={styles.main} tabIndex={-1}>
        <Outlet />
      </main>
      <ShortcutsDialog open={helpOpen} onOpenChange={setHelpOpen} />
    </div>
  );
}
