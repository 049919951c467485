import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useApps } from '../apps/queries';
import { FormEnd, SelectField, TextArea, cardClass, formClass } from '../ui/Field';
import { Loading } from '../ui/States';
import { useToast } from '../ui/Toast';
import { gateKeys, useGatePolicies } from './queries';
import styles from './release-gate.module.css';

const EXAMPLE = '{ "approvals": { "QA": 2 }, "excludeUploader": true, "rules": [] }';

/**
 * Release-gate policies (docs/release-gate.md), for Admins: the team default and each app's own.
 * A policy from svc.config.json is shown read-only, as the file's webhooks are; the others are
 * edited as JSON in the file's shape, and the relay's error names the rule at fault.
 */
export function PoliciesSection() {
  const policies = useGatePolicies();
  const apps = useApps();
  const [adding, setAdding] = useState<number | null>(null);
  if (policies.isPending) return <Loading label="Loading release gate policies…" />;
  const data = policies.data;
  return (
    <section className={cardClass} aria-labelledby="gate-policies-title">
      <h2 id="gate-policies-title">Release gate</h2>
      <p className={styles.note}>Which approvals and rules a build needs before <code>svc/release-gate</code> passes on its pull request.</p>
      {data?.default?.source === 'file' ? (
        <ReadOnly title="Team default" policy={data.default.policy} />
      ) : (
        <PolicyForm title="Team default" path="default" policy={data?.default?.policy ?? null} />
      )}
      {data?.apps.map((app) =>
        app.source === 'file' ? (
          <ReadOnly key={`file-${app.bundle_id}-${app.app_id}`} title={`${app.app_name ?? app.bundle_id} (${app.bundle_id})`} policy={app.policy} />
        ) : (
          <PolicyForm key={`app-${app.app_id}`} title={`${app.app_name} (${app.platform})`} path={app.app_id!} policy={app.policy} />
        ),
      )}
      <SelectField label="Give an app its own policy" value={adding ?? ''} onChange={(e) => setAdding(e.target.value ? Number(e.target.value) : null)}>
        <option value="">Choose an app…</option>
        {apps.data?.items
          .filter((a) => !data?.apps.some((p) => p.app_id === a.id))
          .map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
      </SelectField>
      {adding !== null && <PolicyForm key={`new-${adding}`} title={apps.data?.items.find((a) => a.id === adding)?.name ?? `App ${adding}`} path={adding} policy={null} />}
    </section>
  );
}

function ReadOnly({ title, policy }: { title: string; policy: object }) {
  return (
    <div>
      <h3>
        {title} <span className={styles.note}>from svc.config.json (read-only)</span>
      </h3>
      <pre aria-label={`${title} policy`}>{JSON.stringify(policy, null, 2)}</pre>
    </div>
  );
}

function PolicyForm({ title, path, policy }: { title: string; path: 'default' | number; policy: object | null }) {
  const client = useQueryClient();
  const toast = useToast();
  const [text, setText] = useState('');
  useEffect(() => setText(policy ? JSON.stringify(policy, null, 2) : ''), [policy]);
  const save = useMutation({
    mutationFn: async (value: string) => {
      let parsed: Record<string, unknown> | null = null;
      if (value.trim()) {
        try {
          parsed = JSON.parse(value) as Record<string, unknown>;
        } catch {
          throw new Error('The policy is not valid JSON.');
        }
      }
      const body = { policy: parsed };
      return path === 'default'
        ? call(api.PUT('/api/v1/release-gate/policies/default', { body }))
        : call(api.PUT('/api/v1/release-gate/policies/apps/{id}', { params: { path: { id: path } }, body }));
    },
    onSuccess: () => {
      toast(`${title}: release gate policy saved.`);
      void client.invalidateQueries({ queryKey: gateKeys.all });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(text);
  };
  return (
    <form className={formClass} onSubmit={submit} aria-label={`${title} policy`}>
      <h3>{title}</h3>
      <TextArea label="Policy (JSON; empty removes it)" value={text} placeholder={EXAMPLE} rows={6} onChange={(e) => setText(e.target.value)} />
      <FormEnd error={save.error} pending={save.isPending} label="Save policy" pendingLabel="Saving…" />
    </form>
  );
}
