import type { Schemas } from '../api/client';
import { FormError } from '../ui/Field';
import { Loading } from '../ui/States';
import type { LiveScreen } from './live-screen';
import styles from './devices.module.css';

type UiElement = Schemas['UiElement'];

const describe = (e: UiElement) => `${e.role}${e.label ? `: ${e.label}` : ''}${e.identifier ? ` (${e.identifier})` : ''}`;

/**
 * A live screen, optionally with the UI tree drawn over it (one button per element at its frame,
 * fractions of the screen, so it scales with the picture). The panel, the pop-out and the wall use it.
 */
export function DeviceScreen({
  screen,
  name,
  elements = [],
  selected = null,
  onSelect,
}: {
  screen: LiveScreen;
  name: string;
  elements?: UiElement[];
  selected?: UiElement | null;
  onSelect?: (element: UiElement) => void;
}) {
  return (
    <figure className={styles.screenBox} aria-label={`Device screen: ${name}`}>
      {screen.url ? (
        <div className={styles.screen}>
          <img src={screen.url} alt={`Screen of ${name}`} className={styles.screenImage} />
          {selected && (
            <div
              className={styles.highlight}
              data-testid="selected-element"
              aria-hidden="true"
              style={{
                left: `${selected.frame.x * 100}%`,
                top: `${selected.frame.y * 100}%`,
                width: `${selected.frame.width * 100}%`,
                height: `${selected.frame.height * 100}%`,
              }}
            />
          )}
          {onSelect && (
            <div className={styles.overlay} role="group" aria-label="UI elements">
              {elements.map((element, i) => (
                <button
                  key={i}
                  type="button"
                  className={`${styles.element} ${selected === element ? styles.elementSelected : ''}`}
                  style={{
                    left: `${element.frame.x * 100}%`,
                    top: `${element.frame.y * 100}%`,
                    width: `${element.frame.width * 100}%`,
                    height: `${element.frame.height * 100}%`,
                  }}
                  title={describe(element)}
                  aria-label={describe(element)}
                  aria-pressed={selected === element}
                  onClick={() => onSelect(element)}
                />
              ))}
            </div>
          )}
        </div>
      ) : screen.error ? null : (
        <Loading label="Capturing the screen…" />
      )}
      <figcaption className={styles.muted} role="status">
        {screen.paused ? 'Paused while this tab is hidden' : `Live · ${screen.frames} ${screen.frames === 1 ? 'frame' : 'frames'}`}
      </figcaption>
      {screen.error && <FormError error={{ message: screen.error }} />}
    </figure>
  );
}
