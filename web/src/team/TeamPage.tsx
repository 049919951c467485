import { Link } from 'react-router';
import type { Role, Schemas } from '../api/client';
import { AdminOnly } from '../app/AdminOnly';
import { useCurrentMember } from '../app/RequireAuth';
import { absoluteTime, relativeTime } from '../ui/format';
import { Avatar } from '../ui/Avatar';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { FormError, SelectField, cardClass } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { InviteForm } from './InviteForm';
import { ShareLink } from './ShareLink';
import { ROLES, useChangeRole, useInvitations, useMembers, useRemoveMember, useRevokeInvitation, useSendReset } from './queries';
import styles from '../ui/sections.module.css';

type Member = Schemas['Member'];

export function TeamPage() {
  return (
    <section className={styles.page} aria-labelledby="team-title">
      <h1 id="team-title">Team</h1>
      <AdminOnly what="the team">
        <p className={styles.lead}>
          Members, their roles and invitations. The team name and logo are in <Link to="/settings">team settings</Link>.
        </p>
        <Members />
        <Invitations />
      </AdminOnly>
    </section>
  );
}

function Members() {
  const members = useMembers();
  const admins = members.data?.filter((m) => m.role === 'Admin').length ?? 0;
  return (
    <div className={`${cardClass} ${styles.section}`}>
      <h2>Members</h2>
      {members.isPending ? (
        <Loading label="Loading members…" />
      ) : members.isError ? (
        <FormError error={members.error} />
      ) : (
        <ul className={styles.list} aria-label="Members">
          {members.data.map((member) => (
            <MemberRow key={member.id} member={member} lastAdmin={member.role === 'Admin' && admins <= 1} />
          ))}
        </ul>
      )}
    </div>
  );
}

function MemberRow({ member, lastAdmin }: { member: Member; lastAdmin: boolean }) {
  const me = useCurrentMember();
  const changeRole = useChangeRole();
  const remove = useRemoveMember();
  const reset = useSendReset();
  const name = member.display_name || member.email.split('@')[0];
  const self = member.id === me.id;
  // The relay refuses these too (409 / 400); saying why beforehand beats a refusal after the click.
  const blocked = lastAdmin
    ? 'The only Admin: their role cannot change and they cannot be removed until another member is Admin.'
    : null;
  const noteId = `member-${member.id}-note`;
  return (
    <li className={styles.row} aria-label={name}>
      <Avatar name={name} src={member.avatar_url} className={styles.avatar} />
      <div className={styles.rowMain}>
        <strong>
          {name}
          {self && ' (you)'}
        </strong>
        <span className={styles.meta}>
          {member.email} · joined <time dateTime={member.joined_at} title={absoluteTime(member.joined_at)}>{relativeTime(member.joined_at)}</time>
        </span>
      </div>
      <div className={styles.actions}>
        <SelectField
          label={`Role of ${name}`}
          hideLabel
          value={member.role}
          disabled={!!blocked || changeRole.isPending}
          aria-describedby={blocked ? noteId : undefined}
          onChange={(e) => changeRole.mutate({ id: member.id, role: e.target.value as Role })}
        >
          {ROLES.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </SelectField>
        <Button size="small" disabled={reset.isPending} onClick={() => reset.mutate(member.id)} aria-label={`New password reset link for ${name}`}>
          Reset link
        </Button>
        <ConfirmDialog
          trigger={
            <Button size="small" disabled={!!blocked || self} aria-describedby={blocked ? noteId : undefined} aria-label={`Remove ${name}`}>
              Remove
            </Button>
          }
          title={`Remove ${name}?`}
          description={
            <p>
              {member.email} loses access at once: their browsers are signed out and their access tokens (and agents using
              them) stop working. Their comments stay, under their name.
            </p>
          }
          confirmLabel={`Remove ${name}`}
          onConfirm={() => remove.mutateAsync(member.id)}
        />
      </div>
      {blocked && (
        <p id={noteId} className={styles.note}>
          {blocked}
        </p>
      )}
      {self && !blocked && <p className={styles.note}>You cannot remove yourself; another Admin can.</p>}
      {changeRole.error && (
        <div className={styles.detail}>
          <FormError error={changeRole.error} />
        </div>
      )}
      {(reset.data || reset.error) && (
        <div className={styles.detail}>
          <FormError error={reset.error} />
          {reset.data && (
            <ShareLink
              label={`Password reset link for ${name}`}
              url={reset.data.resetUrl}
              page="/reset-password"
              token={reset.data.token}
              sent={reset.data.emailSent ? `E-mailed to ${member.email}.` : null}
              validity="It works once, for 2 hours; a new link replaces it."
            />
          )}
        </div>
      )}
    </li>
  );
}

function Invitations() {
  const invitations = useInvitations();
  const revoke = useRevokeInvitation();
  return (
    <div className={`${cardClass} ${styles.section}`}>
      <h2>Invitations</h2>
      <InviteForm />
      <h3>Open invitations</h3>
      {invitations.isPending ? (
        <Loading label="Loading invitations…" />
      ) : invitations.isError ? (
        <FormError error={invitations.error} />
      ) : invitations.data.length === 0 ? (
        <Empty>No open invitations.</Empty>
      ) : (
        <ul className={styles.list} aria-label="Open invitations">
          {invitations.data.map((invitation) => {
            const who = invitation.email ?? 'Without e-mail';
            return (
              <li key={invitation.id} className={styles.row}>
                <div className={styles.rowMain}>
                  <strong>{who}</strong>
                  <span className={styles.meta}>
                    {invitation.role} · created {relativeTime(invitation.created_at)} · expires{' '}
                    <time dateTime={invitation.expires_at} title={absoluteTime(invitation.expires_at)}>
                      {relativeTime(invitation.expires_at)}
                    </time>
                  </span>
                </div>
                <ConfirmDialog
                  trigger={
                    <Button size="small" aria-label={`Revoke invitation for ${who}`}>
                      Revoke
                    </Button>
                  }
                  title="Revoke this invitation?"
                  description={<p>The link sent to {invitation.email ?? 'the invitee'} stops working; nobody can join with it.</p>}
                  confirmLabel="Revoke invitation"
                  onConfirm={() => revoke.mutateAsync(invitation.id)}
                />
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
