import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError, type Build } from '../../api/client';
import { cardClass, FormError } from '../../ui/Field';
import { Loading } from '../../ui/States';
import { BuildFacts } from './BuildFacts';
import { CompareSettingsForm } from './CompareSettingsForm';
import { deltaText, flagSentence, notableChanges, percentText } from './comparison-text';
import { absoluteTime, fileSize } from '../../ui/format';
import { versionText } from '../format';
import { useComparison, useContents, type CompareWith } from '../queries';
import { SizeBreakdown } from './SizeBreakdown';
import styles from './contents.module.css';

/**
 * "Compared with build N" beside the verdict: the flags first, then what grew, the size breakdown
 * and the facts of the build (docs/dashboard.md "Build page"). Compared with the previous build by
 * default, or with the last Done one: the contents name both, so the comparison is asked only for
 * one that exists (and only when this build's contents could be read; else it would be a 409).
 */
export function ComparePanel({ build, canEditSettings }: { build: Build; canEditSettings: boolean }) {
  const [to, setTo] = useState<CompareWith>('previous');
  const contents = useContents(build.id);
  const earlier = contents.data?.contents ? (to === 'previous' ? contents.data.previous_build_id : contents.data.last_done_build_id) : undefined;
  const comparison = useComparison(build.id, earlier);
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
      {earlier === null ? (
        <p className={styles.note}>{nothingToCompare(build, to)}</p>
      ) : earlier === undefined ? (
        contents.isPending && <Loading label="Comparing…" />
      ) : comparison.isPending ? (
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

/** No earlier build to compare with, said in words (the API's 404 messages, without asking for them). */
function nothingToCompare(build: Build, to: CompareWith): string {
  if (to === 'last_done') return `No build of the same app and platform uploaded before build ${build.id} is Done`;
  return `First build of this app on ${build.platform === 'ios' ? 'iOS' : 'Android'}: nothing to compare with`;
}

/** Why the comparison failed: an earlier build's contents unreadable (409), or the build gone meanwhile (404). */
function noComparison(error: Error): string {
  if (error instanceof ApiError && (error.status === 404 || error.status === 409)) return error.message;
  return `The comparison could not be loaded: ${error.message}`;
}
