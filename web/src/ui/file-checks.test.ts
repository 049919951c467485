import { describe, expect, it } from 'vitest';
import { buildFileProblem, COMMENT_IMAGE, imageProblem, PROFILE_IMAGE } from './file-checks';

const file = (name: string, type: string, size: number) => new File([new Uint8Array(size)], name, { type });

describe('file checks before sending', () => {
  it('build files: the extensions the relay takes, and its size limit', () => {
    for (const name of ['a.apk', 'A.APK', 'b.app.zip', 'c.zip', 'd.tar.gz', 'e.tgz']) expect(buildFileProblem(file(name, '', 10), 100)).toBeNull();
    expect(buildFileProblem(file('x.ipa', '', 10), 100)).toMatch(/^x\.ipa is not a build the relay takes \(an \.ipa is a device build/);
    expect(buildFileProblem(file('x.aab', '', 10), 100)).toMatch(/an \.aab is a bundle/);
    expect(buildFileProblem(file('notes.txt', '', 10), 100)).toBe('notes.txt is not a build the relay takes: upload an .apk, .app.zip, .tar.gz or .tgz file.');
    expect(buildFileProblem(file('big.apk', '', 2048), 1024)).toBe('big.apk is 2.0 KB: this relay takes builds of at most 1.0 KB.');
    expect(buildFileProblem(file('big.apk', '', 2048), null)).toBeNull();
  });

  it('images: type and size per field', () => {
    expect(imageProblem(file('a.png', 'image/png', 10), PROFILE_IMAGE)).toBeNull();
    expect(imageProblem(file('a.webp', 'image/webp', 10), PROFILE_IMAGE)).toBe('a.webp is not a PNG or JPEG image of at most 2 MB.');
    expect(imageProblem(file('a.webp', 'image/webp', 10), COMMENT_IMAGE)).toBeNull();
    expect(imageProblem(file('a.png', 'image/png', 6 * 1024 * 1024), COMMENT_IMAGE)).toBe('a.png is 6.0 MB: it must be a PNG, JPEG or WebP image of at most 5 MB.');
  });
});
