import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type request from 'supertest';
import type { TestRelay } from './test-relay';

/** Fixtures made by test/fixtures/make-fixtures.sh (aapt, python3); expected.json holds their real metadata. */
export const FIXTURES = join(__dirname, '..', 'fixtures', 'builds');
export const fixture = (name: string) => join(FIXTURES, name);

export interface ExpectedMetadata {
  bundle_id: string;
  version_name: string;
  build_number: string;
  name: string;
  platform: 'ios' | 'android';
}
export const EXPECTED: Record<string, ExpectedMetadata> = JSON.parse(
  readFileSync(join(FIXTURES, 'expected.json'), 'utf8'),
);

/** Attaches a fixture as `file` (optionally under another client file name) plus text fields. */
export function attachBuild(
  req: request.Test,
  name: string,
  fields: Record<string, string> = {},
  filename = name,
): request.Test {
  for (const [key, value] of Object.entries(fields)) req.field(key, value);
  return req.attach('file', readFileSync(fixture(name)), filename);
}

/** Files currently in the relay's temp folder (always local, whatever the store). */
export function tempFiles(relay: TestRelay): string[] {
  return readdirSync(join(relay.dataDir, 'tmp'));
}

/** Build files currently in the relay's store (the data folder, or S3 under SVC_TEST_STORAGE=s3). */
export function buildFiles(relay: TestRelay): Promise<string[]> {
  return relay.storedFiles('builds/');
}
