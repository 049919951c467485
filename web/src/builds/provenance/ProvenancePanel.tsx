import type { Build } from '../../api/client';
import { forgeLinks, useBuildChanges, useForges } from '../../forges/queries';
import styles from '../build-page.module.css';

/**
 * Where the build came from (docs/builds.md "Provenance"): commit, branch, pull request and CI run,
 * linked on the forge that serves the repository (svc.config.json forges), and the changelog.
 * Nothing when the upload said nothing.
 */
export function ProvenancePanel({ build }: { build: Build }) {
  const forges = useForges();
  const p = build.provenance;
  if (!p) return null;
  const links = forgeLinks(forges.data?.forges, p.repository);
  return (
    <section aria-labelledby="provenance-title">
      <h3 id="provenance-title" className={styles.sourceTitle}>
        Source
      </h3>
      <dl className={styles.meta}>
        {p.repository && (
          <>
            <dt>Repository</dt>
            <dd>{p.repository}</dd>
          </>
        )}
        {p.commit && (
          <>
            <dt>Commit</dt>
            <dd>
              {links ? (
                <a href={links.commit(p.commit)} target="_blank" rel="noreferrer noopener" title={p.commit}>
                  <code>{p.commit.slice(0, 10)}</code>
                </a>
              ) : (
                <code title={p.commit}>{p.commit.slice(0, 10)}</code>
              )}
            </dd>
          </>
        )}
        {p.branch && (
          <>
            <dt>Branch</dt>
            <dd>
              <code>{p.branch}</code>
            </dd>
          </>
        )}
        {p.pull_request !== null && (
          <>
            <dt>Pull request</dt>
            <dd>
              {links ? (
                <a href={links.pullRequest(p.pull_request)} target="_blank" rel="noreferrer noopener">
                  #{p.pull_request}
                </a>
              ) : (
                <>#{p.pull_request}</>
              )}
            </dd>
          </>
        )}
        {p.ci_url && (
          <>
            <dt>CI run</dt>
            <dd>
              <a href={p.ci_url} target="_blank" rel="noreferrer noopener">
                Open the CI run
              </a>
            </dd>
          </>
        )}
      </dl>
      {p.changelog && (
        <>
          <h3 className={styles.metaTerm}>What to test</h3>
          <p className={styles.changelog}>{p.changelog}</p>
        </>
      )}
      <WhatChanged build={build} />
    </section>
  );
}

/** The commits since the app's last Done build, when the forge gives them. */
function WhatChanged({ build }: { build: Build }) {
  const changes = useBuildChanges(build.id, Boolean(build.provenance?.commit));
  if (!changes.data || changes.data.source !== 'forge') return null;
  const { commits, base_build_id: base } = changes.data;
  return (
    <section aria-labelledby="changes-title">
      <h3 id="changes-title" className={styles.sourceTitle}>
        What changed since build #{base}
      </h3>
      {commits.length === 0 ? (
        <p className={styles.changelog}>No commits.</p>
      ) : (
        <ul className={styles.changelog} aria-label="Commits">
          {commits.map((c) => (
            <li key={c.sha}>
              {c.url ? (
                <a href={c.url} target="_blank" rel="noreferrer noopener">
                  <code>{c.sha.slice(0, 7)}</code>
                </a>
              ) : (
                <code>{c.sha.slice(0, 7)}</code>
              )}{' '}
              {c.title}
              {c.author && <> · {c.author}</>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
