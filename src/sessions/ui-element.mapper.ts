/** spec §2 "UI element"; frame values are fractions 0–1 of the screen. */
export interface UiElement {
  role: string;
  label: string;
  identifier: string;
  frame: { x: number; y: number; width: number; height: number };
  enabled: boolean;
}

/**
 * An agent's `ui_tree` result as the spec's shape: only the spec's fields, with their types, so
 * nothing an agent adds reaches the response. Null when the result is not a tree at all.
 */
export function toUiElements(result: unknown): UiElement[] | null {
  const elements = (result as { elements?: unknown } | null)?.elements;
  if (!Array.isArray(elements)) return null;
  return elements.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null).map(toUiElement);
}

function toUiElement(element: Record<string, unknown>): UiElement {
  const frame = (typeof element.frame === 'object' && element.frame) || {};
  const { x, y, width, height } = frame as Record<string, unknown>;
  return {
    role: text(element.role),
    label: text(element.label),
    identifier: text(element.identifier),
    frame: { x: fraction(x), y: fraction(y), width: fraction(width), height: fraction(height) },
    enabled: element.enabled !== false,
  };
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const fraction = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
