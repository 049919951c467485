import { imageTypeOfStoredName, sniffImageType } from './image-type';

describe('sniffImageType', () => {
  it('recognises PNG, JPEG and WebP by their bytes', () => {
    expect(sniffImageType(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).toBe('png');
    expect(sniffImageType(Buffer.from('ffd8ffe000104a464946', 'hex'))).toBe('jpeg');
    expect(sniffImageType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))).toBe('webp');
  });

  it('refuses GIF, SVG, HTML, RIFF that is not WebP, and short input', () => {
    expect(sniffImageType(Buffer.from('GIF89a......'))).toBeNull();
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toBeNull();
    expect(sniffImageType(Buffer.from('<html><script>alert(1)</script></html>'))).toBeNull();
    expect(sniffImageType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt ')]))).toBeNull();
    expect(sniffImageType(Buffer.from([0x89, 0x50]))).toBeNull();
    expect(sniffImageType(Buffer.alloc(0))).toBeNull();
  });

  it('maps stored names back to their type', () => {
    expect(imageTypeOfStoredName('abc.png')).toBe('png');
    expect(imageTypeOfStoredName('abc.jpg')).toBe('jpeg');
    expect(imageTypeOfStoredName('abc.webp')).toBe('webp');
    expect(imageTypeOfStoredName('abc.html')).toBeNull();
  });
});
