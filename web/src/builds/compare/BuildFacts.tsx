import type { ReactNode } from 'react';
import type { Schemas } from '../../api/client';
import styles from './contents.module.css';

type Contents = Schemas['BuildContentsInfo'];
type Comparison = Schemas['BuildComparison'];

/** Android: permissions, features, SDKs, ABIs, signing. iOS: minimum OS, frameworks, usage descriptions… New items are marked. */
export function BuildFacts({ contents, comparison }: { contents: Contents; comparison: Comparison | null }) {
  const { android, ios } = contents;
  const added = (list: { added: string[] } | undefined) => new Set(list?.added ?? []);
  return (
    <>
      <h3 className={styles.h3}>{android ? 'Android' : 'iOS'}</h3>
      <dl className={styles.facts}>
        {android && (
          <>
            <Fact term="Permissions">
              <Items items={android.permissions} fresh={added(comparison?.permissions)} gone={comparison?.permissions.removed} />
            </Fact>
            <Fact term="Features">
              <Items items={android.features.map((f) => f.name)} fresh={added(comparison?.features)} gone={comparison?.features.removed} />
            </Fact>
            <Fact term="SDK">
              minimum {android.min_sdk ?? '–'}, target {android.target_sdk ?? '–'}
              {comparison?.min_sdk?.changed && <> (minimum was {comparison.min_sdk.before ?? '–'})</>}
              {comparison?.target_sdk?.changed && <> (target was {comparison.target_sdk.before ?? '–'})</>}
            </Fact>
            <Fact term="ABIs">
              <Items items={android.abis} fresh={added(comparison?.abis)} gone={comparison?.abis.removed} empty="none (no native code)" />
            </Fact>
            <Fact term="Signing">
              {android.signing.schemes.length ? android.signing.schemes.join(', ') : 'unsigned'}
              {comparison?.signing?.changed && <strong className={styles.changed}> · certificate changed</strong>}
            </Fact>
            {android.signing.certificate && (
              <>
                <Fact term="Certificate subject">{android.signing.certificate.subject}</Fact>
                <Fact term="Certificate SHA-256">
                  <code className={styles.digest}>{android.signing.certificate.sha256}</code>
                </Fact>
              </>
            )}
          </>
        )}
        {ios && (
          <>
            <Fact term="Minimum iOS">
              {ios.minimum_os ?? '–'}
              {comparison?.minimum_os?.changed && <> (was {comparison.minimum_os.before ?? '–'})</>}
            </Fact>
            <Fact term="Frameworks">
              <Items items={ios.frameworks} fresh={added(comparison?.frameworks)} gone={comparison?.frameworks.removed} />
            </Fact>
            <Fact term="Usage descriptions">
              <Items
                items={Object.keys(ios.usage_descriptions)}
                fresh={added(comparison?.usage_descriptions)}
                gone={comparison?.usage_descriptions.removed}
                describe={(key) => ios.usage_descriptions[key]}
              />
            </Fact>
            <Fact term="Device capabilities">
              <Items items={ios.required_device_capabilities} fresh={added(comparison?.required_device_capabilities)} />
            </Fact>
            <Fact term="URL schemes">
              <Items items={ios.url_schemes} fresh={added(comparison?.url_schemes)} gone={comparison?.url_schemes.removed} />
            </Fact>
            <Fact term="Extensions">
              <Items items={ios.extensions} fresh={added(comparison?.extensions)} gone={comparison?.extensions.removed} />
            </Fact>
          </>
        )}
      </dl>
      {contents.notes.length > 0 && (
        <ul className={styles.note} aria-label="Notes">
          {contents.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      )}
    </>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Items({
  items,
  fresh,
  gone = [],
  empty = 'none',
  describe,
}: {
  items: string[];
  fresh: Set<string>;
  gone?: string[];
  empty?: string;
  describe?: (item: string) => string | undefined;
}) {
  if (!items.length && !gone.length) return <span className={styles.muted}>{empty}</span>;
  return (
    <ul className={styles.items}>
      {items.map((item) => (
        <li key={item}>
          <code>{item}</code>
          {fresh.has(item) && <span className={styles.newTag}> new</span>}
          {describe?.(item) && <span className={styles.muted}> “{describe(item)}”</span>}
        </li>
      ))}
      {gone.map((item) => (
        <li key={`gone-${item}`} className={styles.gone}>
          <del>
            <code>{item}</code>
          </del>
          <span className={styles.goneTag}> removed</span>
        </li>
      ))}
    </ul>
  );
}
