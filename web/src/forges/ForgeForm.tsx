import { useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { FormError, SelectField, TextArea, TextField, cardClass } from '../ui/Field';
import { splitError } from '../ui/form-errors';
import styles from '../webhooks/webhooks.module.css';
import { useCreateForge, useUpdateForge, type Forge } from './queries';

/** The relay's refusals that belong under a field (SSRF rule and validation messages name it). */
const FIELD_ERRORS = {
  url: /^(Forge URL refused|url\b)/i,
  repositories: /^(repositories\b|each repository|.* is already served by)/i,
  context: /^context\b/i,
  token: /^token\b/i,
  private_key: /^(private_key|app_id|installation_id|A GitHub App)\b/i,
};

const EXAMPLE_URLS = { github: 'https://api.github.com', gitlab: 'https://gitlab.example.com/api/v4', gitea: 'http://gitea.lan:3000/api/v1' } as const;

/**
 * Adds a forge, or edits one added here (`forge` given). The token or App key is write-only: on
 * edit an empty field keeps the stored one. Statuses follow the webhooks' rule for destinations.
 */
export function ForgeForm({ forge, onDone }: { forge?: Forge; onDone: () => void }) {
  const create = useCreateForge();
  const update = useUpdateForge();
  const mutation = forge ? update : create;
  const [type, setType] = useState<Forge['type']>(forge?.type ?? 'github');
  const [url, setUrl] = useState(forge?.api_url ?? '');
  const [repositories, setRepositories] = useState(forge?.repositories.join('\n') ?? '');
  const [context, setContext] = useState(forge?.context ?? '');
  const [useApp, setUseApp] = useState(forge?.auth === 'app');
  const [token, setToken] = useState('');
  const [appId, setAppId] = useState(forge?.app_id ?? '');
  const [installationId, setInstallationId] = useState(forge?.installation_id ?? '');
  const [privateKey, setPrivateKey] = useState('');
  const { field, message } = splitError(mutation.error, FIELD_ERRORS);
  const app = useApp && type === 'github';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const credential = app
      ? { app_id: appId.trim(), installation_id: installationId.trim(), ...(privateKey.trim() ? { private_key: privateKey } : {}) }
      : token.trim()
        ? { token: token.trim() }
        : {};
    const fields = {
      url: url.trim(),
      repositories: repositories.split(/[\s,]+/).filter(Boolean),
      ...(context.trim() ? { context: context.trim() } : {}),
      ...credential,
    };
    const done = { onSuccess: onDone };
    if (forge) update.mutate({ id: forge.id!, ...fields }, done);
    else create.mutate({ type, ...fields }, done);
  };
  const label = forge ? `Edit forge #${forge.id}` : 'New forge';
  return (
    <form onSubmit={submit} className={`${cardClass} ${styles.form}`} aria-label={label}>
      {!forge && (
        <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value as Forge['type'])}>
          <option value="github">GitHub / GitHub Enterprise</option>
          <option value="gitlab">GitLab</option>
          <option value="gitea">Gitea / Forgejo</option>
        </SelectField>
      )}
      <TextField label="API URL" type="url" placeholder={EXAMPLE_URLS[type]} value={url} onChange={(e) => setUrl(e.target.value)} required error={field === 'url' ? message : null} />
      <TextArea
        label="Repositories"
        hint="owner/name, one per line: builds uploaded with one of these get their verdict as a status"
        rows={2}
        value={repositories}
        onChange={(e) => setRepositories(e.target.value)}
        required
        error={field === 'repositories' ? message : null}
      />
      <TextField label="Context (optional)" placeholder={app ? 'svc / review' : 'svc/review'} value={context} onChange={(e) => setContext(e.target.value)} error={field === 'context' ? message : null} />
      {type === 'github' && (
        <label className={styles.check}>
          <input type="checkbox" checked={useApp} onChange={(e) => setUseApp(e.target.checked)} /> GitHub App (check runs instead of statuses)
        </label>
      )}
      {app ? (
        <>
          <TextField label="App ID" inputMode="numeric" value={appId} onChange={(e) => setAppId(e.target.value)} required />
          <TextField label="Installation ID" inputMode="numeric" value={installationId} onChange={(e) => setInstallationId(e.target.value)} required />
          <TextArea
            label="Private key (PEM)"
            hint={forge?.has_private_key ? 'Stored, never shown: leave empty to keep it' : 'Kept encrypted; never shown again'}
            rows={3}
            value={privateKey}
            onChange={(e) => setPrivateKey(e.target.value)}
            required={!forge?.has_private_key}
            error={field === 'private_key' ? message : null}
          />
        </>
      ) : (
        <TextField
          label="Token"
          type="password"
          autoComplete="off"
          hint={forge?.has_token ? 'Stored, never shown: leave empty to keep it' : 'Kept encrypted; never shown again'}
          value={token}
          onChange={(e) => setToken(e.target.value)}
          required={!forge?.has_token}
          error={field === 'token' ? message : null}
        />
      )}
      {field === null && <FormError error={mutation.error} />}
      <div className={styles.actions}>
        <Button type="submit" variant="primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Saving…' : forge ? 'Save forge' : 'Add forge'}
        </Button>
        <Button onClick={onDone}>Cancel</Button>
      </div>
    </form>
  );
}
