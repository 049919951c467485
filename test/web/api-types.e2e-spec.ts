import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/**
 * The dashboard's typed client (web/src/api/schema.d.ts) is generated from the relay's OpenAPI
 * document; a controller or DTO change without regenerating it fails here, not in a browser.
 */
describe('dashboard API types', () => {
  it('web/src/api/schema.d.ts is generated from the current OpenAPI document', async () => {
    const result = await run(process.execPath, [join(root, 'scripts', 'generate-api-types.js'), '--check'], {
      cwd: root,
    }).catch((err: { stderr?: string; code?: number }) => err);
    expect({ code: 'code' in result ? result.code : 0, stderr: result.stderr?.trim() }).toEqual({ code: 0, stderr: expect.any(String) });
  }, 180_000);
});
