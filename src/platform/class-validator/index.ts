import type { Piece } from '../piece';
import { packageDir, sha256Of } from '../packages';

interface StorageModule {
  MetadataStorage: { prototype: Record<'getTargetValidationMetadatas' | 'groupByPropertyName' | 'addValidationMetadata' | 'addValidationSchema', unknown> };
  getMetadataStorage(): import('./target-metadata').TargetMetadataStorage;
}
interface ExecutorModule {
  ValidationExecutor: { prototype: Record<'execute' | 'whitelist', unknown> };
}

const targetMetadata: Piece<'app'> = {
  name: 'class-validator target metadata kept per class',
  changes:
    "the global MetadataStorage's getTargetValidationMetadatas and groupByPropertyName answer a DTO class from a list kept for it (frozen), cleared whenever addValidationMetadata adds a rule; calls with a schema, groups, always or strictGroups go through",
  why: 'each validation walked every decorated class of the relay (an instanceof each) and regrouped the result: bench:validation 6.3 → 4.7–4.9 µs a status body, 8.0 → 6.1–7.0 µs a sign-in body (issue 42, docs/performance.md engine room)',
  checkedAgainst: { 'class-validator': '0.15.1' },
  phase: 'app',
  // The storage's methods it wraps and replaces, and the executor's read-only use of what they answer.
  fingerprint: () => {
    const dir = packageDir('class-validator');
    const { MetadataStorage } = require(`${dir}/cjs/metadata/MetadataStorage`) as StorageModule;
    const { ValidationExecutor } = require(`${dir}/cjs/validation/ValidationExecutor`) as ExecutorModule;
    const p = MetadataStorage.prototype;
    return sha256Of([p.getTargetValidationMetadatas, p.groupByPropertyName, p.addValidationMetadata, p.addValidationSchema, ValidationExecutor.prototype.execute, ValidationExecutor.prototype.whitelist].map(String));
  },
  expected: ['a2a26233ad4bd62acb36204711b8a4388e879fb17c944827c030ba4b9232da5a'],
  install: () => {
    const { getMetadataStorage } = require('class-validator') as StorageModule;
    const { rememberTargetMetadata } = require('./target-metadata') as typeof import('./target-metadata');
    rememberTargetMetadata(getMetadataStorage());
  },
};

export const pieces = [targetMetadata];
