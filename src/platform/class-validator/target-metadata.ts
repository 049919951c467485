import type { MetadataStorage } from 'class-validator';

/** The MetadataStorage methods this piece wraps (class-validator's public class; its instance is the global one). */
export type TargetMetadataStorage = Pick<MetadataStorage, 'getTargetValidationMetadatas' | 'groupByPropertyName' | 'addValidationMetadata'>;
type ValidationMetadata = Parameters<MetadataStorage['addValidationMetadata']>[0];

const wrapped = new WeakSet<object>();

/**
 * Remembers, per DTO class, what class-validator's metadata storage answers for it, as long as no
 * validation metadata is added: its `getTargetValidationMetadatas` walks every decorated class
 * there is (an `instanceof` each, for inherited rules) on every validation, and its
 * `groupByPropertyName` regroups the same list each time. Only the calls the relay makes are kept
 * (no schema, no groups, `always` and `strictGroups` off); any other call goes through as it was.
 * The kept lists are frozen: ValidationExecutor only reads them, and a caller that wrote to one
 * would throw rather than change the next validation's rules. Idempotent (every relay app installs it).
 */
export function rememberTargetMetadata(storage: TargetMetadataStorage): void {
  if (wrapped.has(storage)) return;
  wrapped.add(storage);
  const targets = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let byTarget = new WeakMap<Function, readonly ValidationMetadata[]>();
  const grouped = new WeakMap<readonly ValidationMetadata[], Record<string, ValidationMetadata[]>>();

  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (schema !== undefined || always || strictGroups || (groups && groups.length) || typeof target !== 'function') {
      return targets(target, schema, always, strictGroups, groups);
    }
    let kept = byTarget.get(target);
    if (!kept) byTarget.set(target, (kept = Object.freeze(targets(target, schema, always, strictGroups, groups))));
    return kept as ValidationMetadata[];
  };
  storage.groupByPropertyName = (metadata) => {
    let byProperty = grouped.get(metadata);
    if (byProperty) return byProperty;
    byProperty = group(metadata);
    // Only a kept list's grouping is kept: any other list is new at every call.
    if (Object.isFrozen(metadata)) grouped.set(metadata, Object.freeze(byProperty));
    return byProperty;
  };
  storage.addValidationMetadata = (metadata) => {
    add(metadata);
    // A class decorated later (or a rule added to one) may change any class's list: its subclasses' too.
    byTarget = new WeakMap();
  };
}
