import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { useCurrentMember } from '../app/RequireAuth';
import { ChatSection } from '../chat/ChatSection';
import { ForgesSection } from '../forges/ForgesSection';
import { OutboxDestinations } from '../integrations-outbox/OutboxDestinations';
import { WebhooksSection } from '../webhooks/WebhooksSection';
import styles from '../webhooks/webhooks.module.css';

/**
 * Everything the relay tells other systems (issue 40 item 7): webhooks, forges (commit statuses and
 * pull-request comments; Admins only) and chat. `/webhooks`, where forges used to live, redirects here.
 */
export function IntegrationsPage() {
  const me = useCurrentMember();
  const { hash } = useLocation();
  // A link to #forges (or an old bookmark's redirect) lands on its section once the page is drawn.
  useEffect(() => {
    if (hash) document.getElementById(hash.slice(1))?.scrollIntoView();
  }, [hash]);
  return (
    <div className={styles.page}>
      <h1>Integrations</h1>
      <nav aria-label="Integrations" className={styles.sections}>
        <a href="#webhooks">Webhooks</a>
        {me.role === 'Admin' && <a href="#forges">Forges</a>}
        <a href="#chat">Chat</a>
        {me.role === 'Admin' && <a href="#deliveries">Deliveries</a>}
      </nav>
      <div id="webhooks">
        <WebhooksSection />
      </div>
      {me.role === 'Admin' && (
        <div id="forges">
          <ForgesSection />
        </div>
      )}
      {me.role === 'Admin' ? (
        <ChatSection />
      ) : (
        <section id="chat" aria-labelledby="chat-title" className={styles.page}>
          <h2 id="chat-title">Chat</h2>
          <p className={styles.muted}>Admins choose which Slack channels and Teams webhooks hear of new builds and verdicts.</p>
        </section>
      )}
      {me.role === 'Admin' && (
        <div id="deliveries">
          <OutboxDestinations />
        </div>
      )}
    </div>
  );
}
