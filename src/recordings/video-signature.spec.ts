import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectVideo } from './video-signature';

const head = (name: string) => readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'recordings', name)).subarray(0, 64);

describe('detectVideo', () => {
  it('recognises WebM and MP4 files made by ffmpeg', () => {
    expect(detectVideo(head('two-seconds.webm'))).toEqual({ mime: 'video/webm', extension: 'webm' });
    expect(detectVideo(head('one-second.mp4'))).toEqual({ mime: 'video/mp4', extension: 'mp4' });
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
