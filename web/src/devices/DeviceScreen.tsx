import { useState, type CSSProperties } from 'react';
import type { Schemas } from '../api/client';
import { FormError } from '../ui/Field';
import { Loading } from '../ui/States';
import type { LiveScreen } from './live-screen';
import type { LiveVideo } from './live-video';
import type { ScreenGestures } from './screen-gestures';
import styles from './devices.module.css';

type UiElement = Schemas['UiElement'];

const describe = (e: UiElement) => `${e.role}${e.label ? `: ${e.label}` : ''}${e.identifier ? ` (${e.identifier})` : ''}`;

/**
 * A live screen, optionally with the UI tree drawn over it (one button per element at its frame,
 * fractions of the screen, so it scales with the picture). The panel, the pop-out and the wall use it.
 * With `video` (the panel), the picture is the session's H.264 stream on a canvas until it falls
 * back to the screenshots; with `gestures`, clicks, drags and keys on the picture reach the device
 * (on the video the element boxes are not drawn, so they take no clicks; the selection still is).
 */
export function DeviceScreen({
  screen,
  name,
  elements = [],
  selected = null,
  onSelect,
  video,
  gestures,
}: {
  screen: LiveScreen;
  name: string;
  elements?: UiElement[];
  selected?: UiElement | null;
  onSelect?: (element: UiElement) => void;
  video?: LiveVideo;
  gestures?: ScreenGestures;
}) {
  const playing = video && video.status !== 'fallback' && video.status !== 'off';
  // The picture's width for its height: the frame is sized from it so the whole device fits the window (issue 40 item 7).
  const [imageRatio, setImageRatio] = useState<number | null>(null);
  const ratio = playing ? (video.width && video.height ? video.width / video.height : null) : imageRatio;
  const picture = playing ? (
    <canvas
      ref={video.canvasRef}
      role="img"
      aria-label={`Live video of ${name}`}
      className={styles.screenImage}
      width={video.width || 360}
      height={video.height || 800}
    />
  ) : screen.url ? (
    <img
      src={screen.url}
      alt={`Screen of ${name}`}
      className={styles.screenImage}
      onLoad={(e) => setImageRatio(e.currentTarget.naturalWidth / e.currentTarget.naturalHeight || null)}
    />
  ) : null;
  return (
    <figure className={styles.screenBox} aria-label={`Device screen: ${name}`}>
      {picture ? (
        <div
          className={`${styles.screen} ${gestures ? styles.controllable : ''}`}
          style={ratio ? ({ '--screen-ratio': ratio } as CSSProperties) : undefined}
          {...(gestures
            ? {
                tabIndex: 0,
                'aria-label': `Control ${name}: click to tap, drag to swipe, hold for a long press, type while focused`,
                onPointerDown: gestures.onPointerDown,
                onPointerUp: gestures.onPointerUp,
                onKeyDown: gestures.onKeyDown,
              }
            : {})}
        >
          {picture}
          {playing && video.status === 'connecting' && (
            <div className={styles.videoWaiting}>
              <Loading label="Starting live video…" />
            </div>
          )}
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
          {/* On the live video every point of the picture taps the device; elements are picked in the hierarchy. */}
          {onSelect && !playing && (
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
        {playing
          ? video.status === 'playing'
            ? `Live video · ${video.fps} fps · ${video.latencyMs ?? '–'} ms`
            : 'Live video · starting'
          : screen.paused
            ? 'Paused while this tab is hidden'
            : `Live · ${screen.frames} ${screen.frames === 1 ? 'frame' : 'frames'}`}
      </figcaption>
      {!playing && screen.error && <FormError error={{ message: screen.error }} />}
    </figure>
  );
}
