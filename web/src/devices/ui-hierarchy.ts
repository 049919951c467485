import type { Schemas } from '../api/client';

type UiElement = Schemas['UiElement'];

/** An element of the UI tree with the elements inside it. */
export interface UiNode {
  element: UiElement;
  /** Its index in the agent's list: a stable key while the tree refreshes. */
  index: number;
  children: UiNode[];
}

const area = (e: UiElement) => e.frame.width * e.frame.height;
const EPSILON = 1e-9;

function contains(outer: UiElement, inner: UiElement): boolean {
  const a = outer.frame;
  const b = inner.frame;
  return a.x <= b.x + EPSILON && a.y <= b.y + EPSILON && a.x + a.width >= b.x + b.width - EPSILON && a.y + a.height >= b.y + b.height - EPSILON;
}

/**
 * The agents send the UI tree as a flat list (spec §4: `{ elements }`, in document order). The
 * hierarchy is rebuilt from the frames: an element's parent is the smallest other element whose
 * frame holds it; between equal frames the earlier element is the parent, so there is no cycle.
 */
export function uiHierarchy(elements: UiElement[]): UiNode[] {
  const nodes: UiNode[] = elements.map((element, index) => ({ element, index, children: [] }));
  const roots: UiNode[] = [];
  nodes.forEach((node, i) => {
    let parent: UiNode | null = null;
    nodes.forEach((candidate, j) => {
      if (i === j || !contains(candidate.element, node.element)) return;
      // Equal frames: only an earlier element may be the parent.
      if (contains(node.element, candidate.element) && j > i) return;
      if (!parent || area(candidate.element) < area(parent.element) || (area(candidate.element) === area(parent.element) && j > parent.index)) parent = candidate;
    });
    (parent ? (parent as UiNode).children : roots).push(node);
  });
  return roots;
}

/** Whether an element matches a search by its text (label), id (identifier) or class (role), ignoring case. */
export function matches(element: UiElement, term: string): boolean {
  const needle = term.trim().toLowerCase();
  if (!needle) return true;
  return [element.label, element.identifier, element.role].some((field) => field.toLowerCase().includes(needle));
}

/**
 * The nodes a search shows: the matching ones and their ancestors (so each match is seen in its
 * place), as a set of indexes; null when there is no search (everything shows).
 */
export function visibleForSearch(roots: UiNode[], term: string): Set<number> | null {
  if (!term.trim()) return null;
  const shown = new Set<number>();
  const walk = (node: UiNode): boolean => {
    let any = matches(node.element, term);
    for (const child of node.children) if (walk(child)) any = true;
    if (any) shown.add(node.index);
    return any;
  };
  roots.forEach(walk);
  return shown;
}
