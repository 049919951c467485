import { ApiProperty } from '@nestjs/swagger';

/** Position and size as fractions 0–1 of the screen size. */
export class UiFrame {
  @ApiProperty({ minimum: 0, maximum: 1 })
  x: number;
  @ApiProperty({ minimum: 0, maximum: 1 })
  y: number;
  @ApiProperty({ minimum: 0, maximum: 1 })
  width: number;
  @ApiProperty({ minimum: 0, maximum: 1 })
  height: number;
}

/** spec §2 "UI element"; frame values are fractions 0–1 of the screen. */
export class UiElement {
  @ApiProperty({ example: 'button' })
  role: string;
  @ApiProperty({ example: 'Sign in' })
  label: string;
  @ApiProperty({ example: 'login.submit' })
  identifier: string;
  @ApiProperty({ type: UiFrame })
  frame: UiFrame;
  @ApiProperty()
  enabled: boolean;
}

/** GET /sessions/:sessionId/ui-tree. */
export class UiTree {
  @ApiProperty({ type: [UiElement] })
  elements: UiElement[];
}

/**
 * An agent's `ui_tree` result as the spec's shape (here, below the features that answer or keep it:
 * device sessions, recordings' timelines, the reference agent): only the spec's fields, with their types, so
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
