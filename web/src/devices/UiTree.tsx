import { useMemo, useState } from 'react';
import type { Schemas } from '../api/client';
import { TextField } from '../ui/Field';
import { uiHierarchy, visibleForSearch, type UiNode } from './ui-hierarchy';
import styles from './devices.module.css';

type UiElement = Schemas['UiElement'];

export const describeElement = (e: UiElement) => `${e.role}${e.label ? ` “${e.label}”` : ''}${e.identifier ? ` #${e.identifier}` : ''}`;

/**
 * The UI tree as a hierarchy beside the screen, as in Appium Inspector: expand and collapse, search
 * by text, id or class (matches shown in place, their ancestors opened), and a selected node is
 * outlined on the screen.
 */
export function UiTree({ elements, selected, onSelect }: { elements: UiElement[]; selected: number | null; onSelect: (index: number) => void }) {
  const roots = useMemo(() => uiHierarchy(elements), [elements]);
  const [term, setTerm] = useState('');
  const [collapsed, setCollapsed] = useState<Set<number>>(new Set());
  const visible = useMemo(() => visibleForSearch(roots, term), [roots, term]);
  const toggle = (index: number) =>
    setCollapsed((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });
  const renderNode = (node: UiNode, level: number) => {
    if (visible && !visible.has(node.index)) return null;
    // While searching, every path to a match is open.
    const open = visible !== null || !collapsed.has(node.index);
    const name = describeElement(node.element);
    return (
      <li key={node.index}>
        <div className={styles.treeRow} style={{ paddingLeft: `${level * 0.9}rem` }}>
          {node.children.length ? (
            <button
              type="button"
              className={styles.treeToggle}
              aria-expanded={open}
              aria-label={`${open ? 'Collapse' : 'Expand'} ${name}`}
              onClick={() => toggle(node.index)}
            >
              {open ? '▾' : '▸'}
            </button>
          ) : (
            <span className={styles.treeToggle} aria-hidden="true" />
          )}
          <button
            type="button"
            className={`${styles.treeNode} ${selected === node.index ? styles.treeNodeSelected : ''}`}
            aria-pressed={selected === node.index}
            onClick={() => onSelect(node.index)}
          >
            <span className={styles.treeRole}>{node.element.role}</span>
            {node.element.label && <span> “{node.element.label}”</span>}
            {node.element.identifier && <code> #{node.element.identifier}</code>}
          </button>
        </div>
        {open && node.children.length > 0 && <ul className={styles.treeList}>{node.children.map((child) => renderNode(child, level + 1))}</ul>}
      </li>
    );
  };
  return (
    <section className={styles.tree} aria-labelledby="ui-tree-title">
      <h2 id="ui-tree-title">UI hierarchy</h2>
      <TextField label="Search the UI tree" type="search" placeholder="Text, id or class" value={term} onChange={(e) => setTerm(e.target.value)} />
      {visible && visible.size === 0 ? (
        <p className={styles.muted}>No element matches “{term.trim()}”.</p>
      ) : (
        <ul className={styles.treeList} aria-label="UI elements by hierarchy">
          {roots.map((root) => renderNode(root, 0))}
        </ul>
      )}
    </section>
  );
}
