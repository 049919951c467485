import type { Schemas } from '../../api/client';
import { categoryName, deltaText } from './comparison-text';
import { fileSize } from '../../ui/format';
import styles from './contents.module.css';

type Contents = Schemas['BuildContentsInfo'];
type Comparison = Schemas['BuildComparison'];

/**
 * The size breakdown as a table whose rows carry bars: uncompressed (the full bar) and compressed
 * (the darker one inside it), each against the largest category. SVG attributes, not style, so the
 * CSP needs nothing more; the numbers are in the cells for screen readers and copying.
 */
export function SizeBreakdown({ contents, comparison }: { contents: Contents; comparison: Comparison | null }) {
  const rows = [...contents.breakdown].sort((a, b) => b.uncompressed - a.uncompressed);
  const max = Math.max(1, ...rows.map((r) => r.uncompressed));
  const deltaOf = (r: Contents['breakdown'][number]) =>
    comparison?.categories.find((c) => c.category === r.category && c.name === r.name)?.uncompressed.delta ?? null;
  const percent = (n: number) => `${Math.max(0.5, (n / max) * 100).toFixed(2)}%`;
  return (
    <>
      <h3 className={styles.h3}>Size breakdown</h3>
      <p className={styles.note}>
        File {fileSize(contents.file_size)} · {contents.entries.count} entries, {fileSize(contents.entries.uncompressed)} uncompressed
        {contents.entries.compressed !== null && <>, {fileSize(contents.entries.compressed)} compressed</>}.{' '}
        <span className={styles.legend}>
          <span className={styles.keyUncompressed} aria-hidden="true" /> uncompressed <span className={styles.keyCompressed} aria-hidden="true" /> compressed
        </span>
      </p>
      <div className={styles.tableWrap}>
        <table className={styles.breakdown}>
          <caption className="visually-hidden">Size by category</caption>
          <thead>
            <tr>
              <th scope="col">Category</th>
              <th scope="col" className={styles.barCol}>
                <span className="visually-hidden">Bar</span>
              </th>
              <th scope="col" className={styles.num}>Uncompressed</th>
              <th scope="col" className={`${styles.num} ${styles.optional}`}>Compressed</th>
              {comparison && <th scope="col" className={styles.num}>Change</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const delta = deltaOf(r);
              return (
                <tr key={`${r.category}/${r.name ?? ''}`}>
                  <th scope="row">{categoryName(r)}</th>
                  <td className={styles.barCol}>
                    <svg className={styles.bar} width="100%" height="12" aria-hidden="true">
                      <rect className={styles.barUncompressed} x="0" y="0" height="12" rx="2" width={percent(r.uncompressed)} />
                      {r.compressed !== null && <rect className={styles.barCompressed} x="0" y="3" height="6" rx="2" width={percent(r.compressed)} />}
                    </svg>
                  </td>
                  <td className={styles.num}>{fileSize(r.uncompressed)}</td>
                  <td className={`${styles.num} ${styles.optional}`}>{r.compressed === null ? '–' : fileSize(r.compressed)}</td>
                  {comparison && <td className={`${styles.num} ${delta && delta > 0 ? styles.grew : ''}`}>{delta ? deltaText(delta) : '–'}</td>}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
