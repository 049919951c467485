import { closeSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepTempUploads, tempUploadPath } from '../multipart/multipart-receiver';
import { discardSpareTempFiles, SPARE_MAX_AGE_MS, SPARE_NAME, SPARES_PER_FOLDER, spareTempFilesCreated, takeSpareTempFile } from './spare-temp-files';

describe('spare temp files', () => {
  let dir: string;
  const spares = () => readdirSync(dir).filter((name) => SPARE_NAME.test(name));
  /** Once the spares being created are ready: the folder holds its full set. */
  const filled = async () => {
    await spareTempFilesCreated(dir);
    expect(spares()).toHaveLength(SPARES_PER_FOLDER);
  };

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-spares-'))));
  afterEach(async () => {
    await discardSpareTempFiles(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first take finds none and starts the folder’s spares; a later take renames one to the upload’s name, open for writing', async () => {
    expect(takeSpareTempFile(tempUploadPath(dir))).toBeUndefined();
    await filled();
    const path = tempUploadPath(dir);
    const fd = takeSpareTempFile(path);
    expect(fd).toEqual(expect.any(Number));
    writeSync(fd!, 'upload bytes');
    closeSync(fd!);
    expect(readFileSync(path, 'utf8')).toBe('upload bytes');
    // Replaced at once, so the folder is back to its full set.
    await filled();
  });

  it('throws away spares past their age instead of handing one out', async () => {
    takeSpareTempFile(tempUploadPath(dir));
    await filled();
    const path = tempUploadPath(dir);
    expect(takeSpareTempFile(path, Date.now() + SPARE_MAX_AGE_MS)).toBeUndefined();
    expect(readdirSync(dir)).not.toContain(path.split('/').pop());
    await filled(); // the thrown-away ones replaced by fresh ones
  });

  it('a spare a sweep removed is passed over, and the sweep after a crash removes spares as it removes partial uploads', async () => {
    takeSpareTempFile(tempUploadPath(dir));
    await filled();
    expect(await sweepTempUploads(dir, Date.now() + 1_000)).toBe(SPARES_PER_FOLDER);
    expect(takeSpareTempFile(tempUploadPath(dir))).toBeUndefined();
    await filled();
  });

  it('discarding removes every spare, those still being created included', async () => {
    takeSpareTempFile(tempUploadPath(dir)); // starts the creates
    await discardSpareTempFiles(dir);
    expect(readdirSync(dir)).toEqual([]);
  });
});
