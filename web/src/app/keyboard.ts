/** Where a key press goes: single-key shortcuts never fire while typing or inside a dialog. */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  target: EventTarget | null;
}

interface ElementLike {
  tagName?: string;
  isContentEditable?: boolean;
  closest?: (selector: string) => unknown;
  getAttribute?: (name: string) => string | null;
}

const TYPING_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

export function isShortcutEvent(event: KeyLike): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return false;
  const target = event.target as ElementLike | null;
  if (!target || typeof target !== 'object') return true;
  if (target.tagName && TYPING_TAGS.has(target.tagName.toUpperCase())) return false;
  if (target.isContentEditable) return false;
  if (target.closest?.('[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"]')) return false;
  return true;
}

/** The shortcuts the `?` dialog lists, in the order it lists them. */
export const SHORTCUTS: { keys: string[]; what: string; where: string }[] = [
  { keys: ['j'], what: 'Next build', where: 'Builds' },
  { keys: ['k'], what: 'Previous build', where: 'Builds' },
  { keys: ['Enter'], what: 'Open the selected build', where: 'Builds' },
  { keys: ['x'], what: 'Check or uncheck the selected build (for acting on several)', where: 'Builds' },
  { keys: ['X'], what: 'Check every build from the last one checked to the selected one', where: 'Builds' },
  { keys: ['1'], what: 'Set status Backlog (of every checked build, if any)', where: 'Builds, build page' },
  { keys: ['2'], what: 'Set status In Progress', where: 'Builds, build page' },
  { keys: ['3'], what: 'Set status Done (notifies webhooks)', where: 'Builds, build page' },
  { keys: ['4'], what: 'Set status Rejected (notifies webhooks)', where: 'Builds, build page' },
  { keys: ['c'], what: 'Comment on the build', where: 'Builds, build page' },
  { keys: ['/'], what: 'Search', where: 'Builds' },
  { keys: ['u'], what: 'Upload a build', where: 'Builds' },
  { keys: ['?'], what: 'Show these shortcuts', where: 'Everywhere' },
];
