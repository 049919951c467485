import { useState, type FormEvent } from 'react';
import { Button } from '../ui/Button';
import { FormError, TextArea, cardClass } from '../ui/Field';
import { Loading } from '../ui/States';
import { useGate, useReview, useReviews } from './queries';
import styles from './release-gate.module.css';

const MARK = { met: '✅', unmet: '❌', waiting: '⏳' } as const;
const OUTCOME = { met: 'met', unmet: 'not met', waiting: 'waiting' } as const;
const STATE = { none: 'No policy', pending: 'Pending', passed: 'Passed', failed: 'Failed' } as const;

/**
 * The build's release gate (docs/release-gate.md): every rule of its policy, met or not, with its
 * evidence, the same checklist the pull request's `svc/release-gate` shows; the members' reviews;
 * and, for members who may, their own review (approve or request changes, with a comment).
 */
export function ReleaseGatePanel({ buildId, canReview }: { buildId: number; canReview: boolean }) {
  const gate = useGate(buildId);
  const reviews = useReviews(buildId);
  return (
    <section className={cardClass} aria-labelledby="release-gate-title" id="release-gate">
      <h2 id="release-gate-title">
        Release gate{gate.data ? `: ${STATE[gate.data.state]}` : ''}
      </h2>
      {gate.isPending ? (
        <Loading />
      ) : gate.data ? (
        <>
          {gate.data.policy && (
            <p className={styles.note}>
              Policy: {gate.data.policy.scope === 'app' ? "this app's own" : 'the team default'}, from{' '}
              {gate.data.policy.source === 'file' ? 'svc.config.json (read-only here)' : 'the dashboard'}
              {gate.data.policy.block_done ? '; Done is refused until it passes' : ''}.
            </p>
          )}
          {gate.data.checks.length > 0 ? (
            <ul aria-label="Release gate checklist" className={styles.checklist}>
              {gate.data.checks.map((check) => (
                <li key={check.key} aria-label={`${check.label}: ${OUTCOME[check.outcome]}`}>
                  <span aria-hidden="true">{MARK[check.outcome]}</span> <strong>{check.label}</strong> — {check.detail}
                  {check.evidence && (
                    <>
                      {' '}
                      <a href={check.evidence}>evidence</a>
                    </>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p className={styles.note}>{gate.data.description}</p>
          )}
        </>
      ) : (
        <FormError error={gate.error} />
      )}
      <h3>Reviews</h3>
      {reviews.data && reviews.data.reviews.length === 0 && <p className={styles.note}>No reviews yet.</p>}
      <ul aria-label="Reviews" className={styles.reviews}>
        {reviews.data?.reviews.map((review) => (
          <li key={review.id}>
            <strong>{review.reviewer}</strong> ({review.role}) {review.verdict === 'approve' ? 'approved' : 'requested changes'}
            {review.comment ? `: ${review.comment}` : ''}
            {review.carried_reason && <span className={styles.note}> — carried: {review.carried_reason}</span>}
          </li>
        ))}
      </ul>
      {canReview && <ReviewForm buildId={buildId} />}
    </section>
  );
}

function ReviewForm({ buildId }: { buildId: number }) {
  const review = useReview(buildId);
  const [comment, setComment] = useState('');
  const submit = (verdict: 'approve' | 'request_changes') => (event?: FormEvent) => {
    event?.preventDefault();
    review.mutate({ verdict, comment: comment.trim() || undefined }, { onSuccess: () => setComment('') });
  };
  return (
    <form onSubmit={submit('approve')} aria-label="Your review">
      <TextArea label="Review comment" value={comment} onChange={(e) => setComment(e.target.value)} rows={2} />
      <FormError error={review.error} />
      <div className={styles.actions}>
        <Button type="submit" variant="primary" disabled={review.isPending}>
          Approve
        </Button>
        <Button disabled={review.isPending} onClick={() => submit('request_changes')()}>
          Request changes
        </Button>
      </div>
    </form>
  );
}
