import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEAD_BYTES } from '../common/multipart/multipart-receiver';
import { detectVideo } from './video-signature';

const file = (name: string) => readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'recordings', name));
/** What the multipart receiver keeps of a file. */
const head = (name: string) => file(name).subarray(0, HEAD_BYTES);

describe('detectVideo', () => {
  it('recognises WebM and MP4 files made by ffmpeg', () => {
    expect(detectVideo(head('two-seconds.webm'))).toEqual({ mime: 'video/webm', extension: 'webm' });
    expect(detectVideo(head('one-second.mp4'))).toEqual({ mime: 'video/mp4', extension: 'mp4' });
  });

  it('recognises a WebM whose EBML header writes every element size in 8 bytes (libebml-style)', () => {
    // two-seconds.webm with its EBML header re-encoded: the header's size and each child's size as
    // an 8-byte VINT (0x01 then 7 bytes), everything after the header byte-identical. mkvinfo
    // (libebml) reads it as "EBML head … Document type: webm".
    const long = file('long-header-sizes.webm');
    const original = file('two-seconds.webm');
    expect(long.subarray(4, 12)).toEqual(Buffer.from([1, 0, 0, 0, 0, 0, 0, 0x50]));
    expect(long.indexOf('webm', 0, 'latin1')).toBeGreaterThan(64); // past what the old 64-byte head held
    expect(long.subarray(12 + 0x50)).toEqual(original.subarray(5 + 31));
    expect(detectVideo(head('long-header-sizes.webm'))).toEqual({ mime: 'video/webm', extension: 'webm' });
    // still refused: the same header cut short, or naming another DocType in the same long form
    expect(detectVideo(long.subarray(0, 64))).toBeNull();
    const other = Buffer.from(long);
    other.write('wxyz', long.indexOf('webm', 0, 'latin1'), 'latin1');
    expect(detectVideo(other.subarray(0, HEAD_BYTES))).toBeNull();
  });

  it('tells Matroska and QuickTime apart from WebM and MP4', () => {
    const mkv = Buffer.from(head('two-seconds.webm'));
    mkv.write('matroska', mkv.indexOf('webm'), 'latin1'); // DocType size byte says 4: "matr" is not a known DocType
    expect(detectVideo(mkv)).toBeNull();
    const docType = Buffer.from([0x42, 0x82, 0x88, ...Buffer.from('matroska')]);
    const ebml = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x80 | docType.length]), docType]);
    expect(detectVideo(ebml)).toEqual({ mime: 'video/x-matroska', extension: 'mkv' });
    const mov = Buffer.concat([Buffer.from([0, 0, 0, 20]), Buffer.from('ftypqt  ', 'latin1'), Buffer.alloc(8)]);
    expect(detectVideo(mov)).toEqual({ mime: 'video/quicktime', extension: 'mov' });
  });

  it('refuses anything else', () => {
    expect(detectVideo(Buffer.from('<html></html>'))).toBeNull();
    expect(detectVideo(Buffer.from([0x89, 0x50, 0x4e, 0x47]))).toBeNull();
    expect(detectVideo(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))).toBeNull();
    expect(detectVideo(Buffer.alloc(0))).toBeNull();
  });
});
