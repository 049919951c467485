import { describe, expect, it } from 'vitest';
import { isShortcutEvent, type KeyLike } from './keyboard';

function press(key: string, target: unknown = null, extra: Partial<KeyLike> = {}): KeyLike {
  return { key, ctrlKey: false, metaKey: false, altKey: false, defaultPrevented: false, target: target as EventTarget, ...extra };
}

const element = (tagName: string, inside: string | null = null) => ({
  tagName,
  isContentEditable: false,
  closest: (selector: string) => (inside && selector.includes(inside) ? {} : null),
});

describe('isShortcutEvent', () => {
  it('takes a plain key on the page', () => {
    expect(isShortcutEvent(press('j', element('BODY')))).toBe(true);
    expect(isShortcutEvent(press('3', element('TR')))).toBe(true);
  });

  it('never fires while typing', () => {
    expect(isShortcutEvent(press('j', element('INPUT')))).toBe(false);
    expect(isShortcutEvent(press('j', element('textarea')))).toBe(false);
    expect(isShortcutEvent(press('j', element('SELECT')))).toBe(false);
    expect(isShortcutEvent(press('j', { tagName: 'DIV', isContentEditable: true }))).toBe(false);
  });

  it('leaves modified keys to the browser', () => {
    expect(isShortcutEvent(press('c', element('BODY'), { ctrlKey: true }))).toBe(false);
    expect(isShortcutEvent(press('c', element('BODY'), { metaKey: true }))).toBe(false);
    expect(isShortcutEvent(press('c', element('BODY'), { altKey: true }))).toBe(false);
  });

  it('stays out of dialogs and menus', () => {
    expect(isShortcutEvent(press('1', element('BUTTON', 'role="dialog"')))).toBe(false);
    expect(isShortcutEvent(press('1', element('DIV', 'role="menu"')))).toBe(false);
  });

  it('respects a handler that already took the key', () => {
    expect(isShortcutEvent(press('j', element('BODY'), { defaultPrevented: true }))).toBe(false);
  });
});
