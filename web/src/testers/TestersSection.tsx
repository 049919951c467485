import { useId, useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { FormEnd, FormError, TextField, formClass } from '../ui/Field';
import { Loading } from '../ui/States';
import { tableClass, tableWrapClass } from '../ui/table';
import { useAddTester, useRemoveTester, useTesters } from './queries';

/**
 * An app's testers (docs/integrations.md "Testers"): people e-mailed a link of their own for each
 * new build. Writers add and remove them; a refusal by the mail server shows for Admins. Shown in
 * an app's card on the Apps page once opened.
 */
export function TestersSection({ appId, canWrite }: { appId: number; canWrite: boolean }) {
  const testers = useTesters(appId);
  const add = useAddTester(appId);
  const remove = useRemoveTester(appId);
  const [email, setEmail] = useState('');
  const [branches, setBranches] = useState('');
  const headingId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const list = branches.split(',').map((b) => b.trim()).filter(Boolean);
    add.mutate({ email, branches: list.length ? list : null, only_done: false }, { onSuccess: () => (setEmail(''), setBranches('')) });
  };

  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>Testers</h3>
      {testers.isPending && <Loading label="Loading testers…" />}
      {testers.isError && <FormError error={testers.error} />}
      {testers.data && (
        <div className={tableWrapClass}>
          <table className={tableClass} aria-label="Testers">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Builds</th>
                <th scope="col">State</th>
                {canWrite && <th scope="col"><span className="visually-hidden">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {testers.data.map((t) => (
                <tr key={t.id}>
                  <td>{t.email}</td>
                  <td>{t.branches ? `Branches ${t.branches.join(', ')}` : 'Every branch'}{t.only_done ? ', once Done' : ''}</td>
                  <td>{t.unsubscribed_at ? 'Unsubscribed' : t.last_refusal ? `Refused: ${t.last_refusal}` : 'Subscribed'}</td>
                  {canWrite && (
                    <td>
                      <ConfirmDialog
                        trigger={<Button size="small">Remove</Button>}
                        title={`Remove ${t.email}?`}
                        description="Every link this tester was sent stops working."
                        confirmLabel="Remove tester"
                        onConfirm={() => remove.mutateAsync(t.id)}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite && (
        <form className={formClass} onSubmit={submit} aria-label="Add a tester">
          <TextField label="E-mail" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <TextField label="Branches" hint="Comma-separated; empty for every build" value={branches} onChange={(e) => setBranches(e.target.value)} />
          <FormEnd error={add.error} pending={add.isPending} label="Add tester" pendingLabel="Adding…" />
        </form>
      )}
    </section>
  );
}
