import { TableColumnOptions } from 'typeorm';

/** Column shapes shared by every migration, so all tables agree with the entities on both dialects. */
export function idColumn(): TableColumnOptions {
  return { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' };
}

/** Epoch milliseconds (see timestamp.column.ts). */
export function timestamp(name: string, nullable = false): TableColumnOptions {
  return { name, type: 'bigint', isNullable: nullable };
}
