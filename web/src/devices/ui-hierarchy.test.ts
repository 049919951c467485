import { describe, expect, it } from 'vitest';
import { matches, uiHierarchy, visibleForSearch, type UiNode } from './ui-hierarchy';

const el = (role: string, label: string, identifier: string, x: number, y: number, width: number, height: number) => ({
  role,
  label,
  identifier,
  enabled: true,
  frame: { x, y, width, height },
});

const shape = (nodes: UiNode[]): unknown => nodes.map((n) => ({ [n.element.identifier || n.element.role]: shape(n.children) }));

describe('uiHierarchy', () => {
  it('nests each element in the smallest frame that holds it', () => {
    const tree = uiHierarchy([
      el('window', '', 'root', 0, 0, 1, 1),
      el('form', '', 'login', 0.05, 0.5, 0.9, 0.4),
      el('button', 'Sign in', 'login_button', 0.1, 0.8, 0.8, 0.075),
      el('text', 'Welcome', 'title', 0.1, 0.1, 0.8, 0.05),
    ]);
    expect(shape(tree)).toEqual([{ root: [{ login: [{ login_button: [] }] }, { title: [] }] }]);
  });

  it('equal frames: the earlier element is the parent; nothing is lost or cyclic', () => {
    const tree = uiHierarchy([el('frame', '', 'a', 0, 0, 1, 1), el('view', '', 'b', 0, 0, 1, 1), el('view', '', 'c', 0, 0, 1, 1)]);
    expect(shape(tree)).toEqual([{ a: [{ b: [{ c: [] }] }] }]);
    expect(uiHierarchy([el('x', '', 'p', 0, 0, 0.5, 0.5), el('y', '', 'q', 0.5, 0.5, 0.5, 0.5)])).toHaveLength(2);
  });
});

describe('search', () => {
  const tree = uiHierarchy([el('window', '', 'root', 0, 0, 1, 1), el('XCUIElementTypeButton', 'Sign in', 'login_button', 0.1, 0.8, 0.8, 0.1), el('text', 'Welcome', 'title', 0.1, 0.1, 0.8, 0.05)]);

  it('by text, id or class, ignoring case; the matches with their ancestors', () => {
    expect(matches(tree[0].children[0].element, 'sign IN')).toBe(true);
    expect([...visibleForSearch(tree, 'login_')!].sort()).toEqual([0, 1]);
    expect([...visibleForSearch(tree, 'buttON')!].sort()).toEqual([0, 1]);
    expect([...visibleForSearch(tree, 'welcome')!].sort()).toEqual([0, 2]);
    expect(visibleForSearch(tree, 'nothing')!.size).toBe(0);
    expect(visibleForSearch(tree, '  ')).toBeNull();
  });
});
