import { Link } from 'react-router';
import { fileSize } from '../ui/format';
import { versionText } from '../builds/format';
import { useAppSizes } from './queries';
import styles from './apps.module.css';

const HEIGHT = 32;

/**
 * An app's file size over its last 20 builds: one bar per build, oldest on the left, a flagged
 * build's bar in the danger colour. The bars are SVG attributes (nothing for the CSP to allow);
 * the figures are in a visually hidden table for screen readers.
 */
export function SizeTrend({ appId, appName }: { appId: number; appName: string }) {
  const sizes = useAppSizes(appId);
  const items = sizes.data?.items ?? [];
  if (items.length === 0) return null;
  const max = Math.max(...items.map((b) => b.file_size));
  const min = Math.min(...items.map((b) => b.file_size));
  const latest = items[items.length - 1];
  const first = items[0];
  const change = first.file_size ? ((latest.file_size - first.file_size) / first.file_size) * 100 : 0;
  const width = 100 / items.length;
  return (
    <figure className={styles.trend} aria-labelledby={`sizes-${appId}`}>
      <svg className={styles.trendChart} width="100%" height={HEIGHT} viewBox={`0 0 100 ${HEIGHT}`} preserveAspectRatio="none" aria-hidden="true">
        {items.map((b, i) => {
          // The smallest build still shows a third of a bar, so small changes stay visible.
          const h = max === min ? HEIGHT * 0.8 : HEIGHT * (0.33 + (0.67 * (b.file_size - min)) / (max - min));
          return <rect key={b.build_id} className={b.flag_count ? styles.trendFlagged : styles.trendBar} x={i * width + width * 0.1} y={HEIGHT - h} width={width * 0.8} height={h} />;
        })}
      </svg>
      <figcaption id={`sizes-${appId}`} className={styles.muted}>
        Size over the last {items.length} {items.length === 1 ? 'build' : 'builds'}: {fileSize(latest.file_size)} now
        {items.length > 1 && <>, {change >= 0 ? '+' : '−'}{Math.abs(Math.round(change * 10) / 10)} % since {versionText(first.version_name, first.build_number)}</>}
      </figcaption>
      <table className="visually-hidden">
        <caption>File size of {appName}'s last builds</caption>
        <thead>
          <tr>
            <th scope="col">Build</th>
            <th scope="col">Size</th>
            <th scope="col">Flags</th>
          </tr>
        </thead>
        <tbody>
          {items.map((b) => (
            <tr key={b.build_id}>
              <th scope="row">
                <Link to={`/builds/${b.build_id}`}>{versionText(b.version_name, b.build_number)}</Link>
              </th>
              <td>{fileSize(b.file_size)}</td>
              <td>{b.flag_count}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
