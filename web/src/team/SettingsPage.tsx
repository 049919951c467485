import { useEffect, useState, type FormEvent } from 'react';
import { AdminOnly } from '../app/AdminOnly';
import { useSettings } from '../auth/queries';
import { FormEnd, FormError, SelectField, TextField, cardClass, formClass } from '../ui/Field';
import { useSetTwoFactorPolicy, useTwoFactorPolicy } from '../auth/two-factor-queries';
import type { Schemas } from '../api/client';
import { ScimTokensSection } from '../identity/ScimTokensSection';
import { PoliciesSection } from '../release-gate/PoliciesSection';
import { splitError } from '../ui/form-errors';
import { useImagePick } from '../ui/ImageField';
import { Loading } from '../ui/States';
import { useToast } from '../ui/Toast';
import { useUpdateSettings } from './queries';
import { useReviewPolicy, useSetReviewPolicy } from './review-policy-queries';
import styles from '../ui/sections.module.css';

export function SettingsPage() {
  return (
    <section className={styles.page} aria-labelledby="settings-title">
      <h1 id="settings-title">Team settings</h1>
      <AdminOnly what="the team settings">
        <p className={styles.lead}>The name and logo every member sees in the header and in invitation e-mails.</p>
        <SettingsForm />
        <TwoFactorPolicyForm />
        <ReviewPolicyForm />
        <ScimTokensSection />
        <PoliciesSection />
      </AdminOnly>
    </section>
  );
}

function SettingsForm() {
  const settings = useSettings(true);
  const update = useUpdateSettings();
  const toast = useToast();
  const logo = useImagePick();
  const [teamName, setTeamName] = useState('');
  const saved = settings.data?.team_name;
  useEffect(() => {
    if (saved !== undefined) setTeamName(saved);
  }, [saved]);
  const { field, message } = splitError(update.error, { team_name: /^team_name\b/i, logo: /^logo\b|image/i });
  if (settings.isPending) return <Loading label="Loading settings…" />;
  if (settings.isError) return <FormError error={settings.error} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      { team_name: teamName.trim(), logo: logo.file ?? undefined },
      {
        onSuccess: () => {
          logo.clear();
          toast('Team settings saved.');
        },
      },
    );
  };
  return (
    <form className={`${cardClass} ${formClass}`} onSubmit={submit} noValidate aria-label="Team settings">
      <TextField label="Team name" value={teamName} onChange={(e) => setTeamName(e.target.value)} required error={field === 'team_name' ? message : null} />
      {settings.data.logo_url && <img className={styles.preview} src={settings.data.logo_url} alt="The current team logo" />}
      {logo.field({ label: 'Logo', error: field === 'logo' ? message : null })}
      <FormEnd error={field === null ? update.error : null} pending={update.isPending} label="Save settings" pendingLabel="Saving…" />
    </form>
  );
}

/** Whether rejecting a build needs a reason (a comment); the relay enforces it (docs/builds.md). */
function ReviewPolicyForm() {
  const policy = useReviewPolicy();
  const save = useSetReviewPolicy();
  const toast = useToast();
  if (policy.isPending) return null;
  if (policy.isError) return <FormError error={policy.error} />;
  return (
    <form className={`${cardClass} ${formClass}`} onSubmit={(event) => event.preventDefault()} noValidate aria-label="Review policy">
      <label>
        <input
          type="checkbox"
          checked={policy.data.reject_reason_required}
          disabled={save.isPending}
          onChange={(e) => save.mutate(e.target.checked, { onSuccess: (p) => toast(p.reject_reason_required ? 'Rejecting now asks for a reason.' : 'A reason for rejecting is now optional.') })}
        />{' '}
        Rejecting a build requires a reason (posted as a comment)
      </label>
      <FormError error={save.error} />
    </form>
  );
}

type Requirement = Schemas['TwoFactorPolicyDto']['required_for'];

/** Who must sign in with a second factor; members it applies to without one are sent to set it up. */
function TwoFactorPolicyForm() {
  const policy = useTwoFactorPolicy(true);
  const save = useSetTwoFactorPolicy();
  const toast = useToast();
  const [value, setValue] = useState<Requirement>('nobody');
  const saved = policy.data?.required_for;
  useEffect(() => {
    if (saved) setValue(saved);
  }, [saved]);
  if (policy.isPending) return null;
  if (policy.isError) return <FormError error={policy.error} />;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(value, { onSuccess: () => toast('Two-factor policy saved.') });
  };
  return (
    <form className={`${cardClass} ${formClass}`} onSubmit={submit} noValidate aria-label="Two-factor sign-in policy">
      <SelectField
        label="Two-factor sign-in required for"
        hint="Members it applies to who have not set it up can only reach their profile page until they do. Tokens (PATs) are not affected."
        value={value}
        onChange={(e) => setValue(e.target.value as Requirement)}
      >
        <option value="nobody">Nobody (each member chooses)</option>
        <option value="admins">Admins</option>
        <option value="everyone">Everyone</option>
      </SelectField>
      <FormEnd error={save.error} pending={save.isPending} label="Save policy" pendingLabel="Saving…" />
    </form>
  );
}
