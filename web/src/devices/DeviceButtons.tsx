import { Button } from '../ui/Button';
import { FormError } from '../ui/Field';
import type { Gesture, ScreenGestures } from './screen-gestures';
import styles from './devices.module.css';

const BUTTONS: { button: Extract<Gesture, { method: 'press_button' }>['button']; label: string }[] = [
  { button: 'home', label: 'Home' },
  { button: 'back', label: 'Back' },
  { button: 'volume_down', label: 'Volume down' },
  { button: 'volume_up', label: 'Volume up' },
];

/** The device's hardware buttons, and what the last input on the picture did. */
export function DeviceButtons({ gestures }: { gestures: ScreenGestures }) {
  return (
    <div className={styles.deviceButtons}>
      <div role="group" aria-label="Hardware buttons" className={styles.titleRow}>
        {BUTTONS.map(({ button, label }) => (
          <Button key={button} size="small" disabled={gestures.pending} onClick={() => gestures.send({ method: 'press_button', button })}>
            {label}
          </Button>
        ))}
      </div>
      <FormError error={gestures.error} />
      {gestures.last && !gestures.pending && (
        <p role="status" className={styles.muted}>
          {gestures.last}
        </p>
      )}
    </div>
  );
}
