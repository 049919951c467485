import { basename } from 'node:path';
import { SPARE_NAME } from '../../src/common/files/spare-temp-files';

/**
 * Whether a temp-folder entry is something an upload left, not one of the empty spare files the
 * relay keeps ready for the next uploads (src/common/files/spare-temp-files.ts; at most four, removed
 * when it stops).
 */
export const notSpare = (name: string): boolean => !SPARE_NAME.test(basename(name));
