import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Upload } from '@tus/server';
import { createRelayFileStores } from './relay-file-store';
import { tusModules } from './tus-modules';
import { newUploadId } from './upload-id';

/**
 * The tus stores refuse, as "not found", any id not in the relay's form, whatever the layers above
 * let through: both join the id onto their folder as a path.
 */
describe('the relay file store (defence in depth under the tus routes)', () => {
  let root: string;
  let directory: string;
  let stores: ReturnType<typeof createRelayFileStores>;
  const canary = () => join(root, 'canary');

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-tus-store-'));
    directory = join(root, 'tmp', 'tus');
    mkdirSync(directory, { recursive: true });
    // one store for the suite: it makes its folder in the background, which must not race a removal
    stores = createRelayFileStores(directory, 60_000);
  });
  beforeEach(() => {
    writeFileSync(canary(), 'canary');
    writeFileSync(`${canary()}.json`, JSON.stringify({ id: 'canary', size: 100, offset: 0, creation_date: new Date().toISOString() }));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const outOfForm = ['../../canary', `${newUploadId(1)}/../../../canary`, '1-abc', '', `${newUploadId(1)}.json`, `0${newUploadId(1)}`];

  it.each(outOfForm)('id %j: every store operation is refused before touching the disk', async (id) => {
    const { store, infos } = stores;
    const notFound = tusModules().ERRORS.FILE_NOT_FOUND;
    await expect(store.remove(id)).rejects.toBe(notFound);
    await expect(store.getUpload(id)).rejects.toBe(notFound);
    await expect(store.declareUploadLength(id, 10)).rejects.toBe(notFound);
    await expect(store.write(Readable.from([Buffer.from('EVIL')]), id, 6)).rejects.toBe(notFound);
    await expect(store.create({ id, size: 10, offset: 0 } as Upload)).rejects.toBe(notFound);
    expect(() => store.read(id)).toThrow();
    await expect(infos.get(id)).rejects.toBe(notFound);
    await expect(infos.set(id, { id, size: 10, offset: 0 } as Upload)).rejects.toBe(notFound);
    await expect(infos.delete(id)).rejects.toBe(notFound);
    expect(readFileSync(canary(), 'utf8')).toBe('canary');
    expect(existsSync(`${canary()}.json`)).toBe(true);
  });

  it('an id in the relay\'s form is stored, written and removed as tus expects', async () => {
    const { store } = stores;
    const id = newUploadId(7);
    await store.create(new (tusModules().Upload)({ id, size: 10, offset: 0 }));
    expect(await store.write(Readable.from([Buffer.from('abcd')]), id, 0)).toBe(4);
    expect((await store.getUpload(id)).offset).toBe(4);
    await store.remove(id);
    expect(existsSync(join(directory, id))).toBe(false);
  });
});
