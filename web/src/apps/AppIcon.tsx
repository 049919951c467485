import { tileClass } from '../ui/Tile';
import styles from './apps.module.css';

/**
 * A build's launcher icon (`icon_url`, read at upload), or the app name's first letter when it has
 * none. Only builds with an icon get a URL, so the page never requests a 404 (a console error).
 * Decorative: the app's name always stands beside it.
 */
export function AppIcon({ name, src, large = false }: { name: string; src: string | null; large?: boolean }) {
  const className = [tileClass, styles.appIcon, large ? styles.appIconLarge : ''].join(' ');
  if (src) return <img className={className} src={src} alt="" loading="lazy" />;
  return (
    <span className={className} aria-hidden="true">
      {name.trim().slice(0, 1).toUpperCase() || '?'}
    </span>
  );
}
