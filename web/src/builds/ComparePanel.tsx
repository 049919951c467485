import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError, type Build } from '../api/client';
import { cardClass, FormError } from '../ui/Field';
import { Loading } from '../ui/States';
import { BuildFacts } from './BuildFacts';
import { CompareSettingsForm } from './CompareSettingsForm';
import { deltaText, flagSentence, notableChanges, percentText } from './comparison-text';
import { absoluteTime, fileSize, versionText } from './format';
import { useComparison, useContents, type CompareWith } from './queries';
import { SizeBreakdown } from './SizeBreakdown';
import styles from './contents.module.css';

/**
 * "Compared with build N" beside the verdict: the flags first, then what grew, the size breakdown
 * and the facts of the build (docs/dashboard.md "Build page"). Compared with the previous build by
 * default, or with the last Done one.
 */
export function ComparePanel({ build, canEditSettings }: { build: Build; canEditSettings: boolean }) {
  const [to, setTo] = useState<CompareWith>('previous');
  const comparison = useComparison(build.id, to);
  const contents = useContents(build.id);
  const c = comparison.data;
  return (
    <section className={cardClass} aria-labelledby="compare-title">
      <div className={styles.head}>
        <h2 id="compare-title">{c ? <>Compared with build {c.compared_with.id}</> : 'Contents'}</h2>
        <fieldset className={styles.switch}>
          <legend className="visually-hidden">Compare with</legend>
          {(['previous', 'last_done'] as const).map((value) => (
            <label key={value}>
              <input type="radio" name="compare-with" value={value} checked={to === value} onChange={() => setTo(value)} />
              {value === 'previous' ? 'Previous build' : 'Last Done build'}
            </label>
          ))}
        </fieldset>
      </div>
      {comparison.isPending ? (
        <Loading label="Comparing…" />
      ) : comparison.isError ? (
        <p className={styles.note}>{noComparison(comparison.error)}</p>
      ) : (
        c && (
          <>
            <p className={styles.note}>
              <Link to={`/builds/${c.compared_with.id}`}>
                Build {c.compared_with.id}, {versionText(c.compared_with.version_name, c.compared_with.build_number)}
              </Link>{' '}
              ({c.compared_with.status_label ?? 'no status'}, uploaded {absoluteTime(c.compared_with.uploaded_at)}) · file{' '}
              {fileSize(c.size.file.before)} → {fileSize(c.size.file.after)} ({deltaText(c.size.file.delta)}, {percentText(c.size.file.percent, c.size.file.delta)})
            </p>
            {c.flags.length ? (
              <ul className={styles.flags} aria-label={`${c.flags.length} ${c.flags.length === 1 ? 'flag' : 'flags'}`}>
                {c.flags.map((flag, i) => (
                  <li key={i} title={flag.reason}>
                    <span aria-hidden="true">⚑ </span>
                    {flagSentence(flag, c)}
                  </li>
                ))}
              </ul>
            ) : (
              <p className={styles.clean}>Nothing flagged.</p>
            )}
            <Changes lines={notableChanges(c)} />
          </>
        )
      )}
      {contents.isPending ? (
        <Loading label="Reading the contents…" />
      ) : contents.isError ? (
        <FormError error={contents.error} />
      ) : contents.data.contents ? (
        <>
          <SizeBreakdown contents={contents.data.contents} comparison={c ?? null} />
          <BuildFacts contents={contents.data.contents} comparison={c ?? null} />
        </>
      ) : (
        <p className={styles.note}>Contents not available: {contents.data.unavailable_reason}</p>
      )}
      {canEditSettings && <CompareSettingsForm appId={build.app_id} />}
    </section>
  );
}

function Changes({ lines }: { lines: string[] }) {
  if (!lines.length) return null;
  return (
    <>
      <h3 className={styles.h3}>Notable size changes</h3>
      <ul className={styles.changes}>
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}

/** Why there is no comparison: the first build, nothing Done before, contents unreadable. */
function noComparison(error: Error): string {
  if (error instanceof ApiError && (error.status === 404 || error.status === 409)) return error.message;
  return `The comparison could not be loaded: ${error.message}`;
}
