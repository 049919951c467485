import { tileClass } from './Tile';

/**
 * A member's profile picture, or their name's first letter when they have none (no request, so no
 * 404). Decorative: the name always stands beside it. `className` adds size and shape.
 */
export function Avatar({ name, src, className }: { name: string; src: string | null | undefined; className?: string }) {
  const classes = [tileClass, className].filter(Boolean).join(' ');
  if (src) return <img className={classes} src={src} alt="" />;
  return (
    <span className={classes} aria-hidden="true">
      {name.trim().slice(0, 1).toUpperCase() || '?'}
    </span>
  );
}
