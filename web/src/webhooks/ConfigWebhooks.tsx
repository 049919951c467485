import { useState } from 'react';
import { useCurrentMember } from '../app/RequireAuth';
import { Button } from '../ui/Button';
import { FormError, cardClass } from '../ui/Field';
import { DeliveryLog, TestResult } from './DeliveryLog';
import { useTestDelivery, type ConfigWebhook } from './queries';
import styles from './webhooks.module.css';

/**
 * Webhooks declared in svc.config.json: they deliver like the others, so the page shows them, read
 * only (the file is the operator's; a change needs a restart), with their log and a test delivery.
 */
export function ConfigWebhooks({ hooks }: { hooks: ConfigWebhook[] }) {
  return (
    <section aria-labelledby="config-webhooks-title" className={styles.page}>
      <h3 id="config-webhooks-title">From svc.config.json</h3>
      <p className={styles.muted}>
        Declared by whoever runs the relay, in its configuration file: read-only here, changed in the file (then restart the
        relay). Only the address is shown: paths often carry tokens. Their delivery log is kept until the relay restarts.
      </p>
      <ul className={styles.list}>
        {hooks.map((hook) => (
          <ConfigWebhookItem key={hook.id} hook={hook} />
        ))}
      </ul>
    </section>
  );
}

function ConfigWebhookItem({ hook }: { hook: ConfigWebhook }) {
  const me = useCurrentMember();
  const [showLog, setShowLog] = useState(false);
  const test = useTestDelivery();
  const name = `svc.config.json webhook ${hook.index}`;
  const source = { configIndex: hook.index };
  return (
    <li className={`${cardClass} ${styles.hook}`} aria-label={name}>
      <div className={styles.hookHead}>
        <code className={styles.url}>{hook.url}</code>
        <span className={hook.in_use ? styles.enabled : styles.disabled}>{hook.in_use ? 'In use' : 'Not used'}</span>
      </div>
      <p className={styles.muted}>
        from svc.config.json (webhooks[{hook.index}]) · {hook.has_secret ? 'signed' : 'not signed'}
        {hook.problem !== null && ` · not used: ${hook.problem}`}
      </p>
      <div className={styles.actions}>
        {me.role === 'Admin' && hook.in_use && (
          <Button size="small" onClick={() => test.mutate(source, { onSuccess: () => setShowLog(true) })} disabled={test.isPending}>
            {test.isPending ? 'Sending…' : 'Send test delivery'}
          </Button>
        )}
        <Button size="small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
          {showLog ? 'Hide deliveries' : 'Deliveries'}
        </Button>
      </div>
      <FormError error={test.error} />
      {test.data && <TestResult attempt={test.data} />}
      {showLog && <DeliveryLog source={source} name={name} />}
    </li>
  );
}
