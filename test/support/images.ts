import { solidPng } from '../../src/agent-daemon/backends/png-image';

/** Small image files and impostors for upload tests: only the first bytes matter to the relay. */
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const JPEG_HEAD = Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex');

function padded(head: Buffer, size: number): Buffer {
  return size <= head.length ? head : Buffer.concat([head, Buffer.alloc(size - head.length, 0x41)]);
}

export const images = {
  /** A real, drawable PNG (a 64×64 indigo square) for pages that show the picture: a team logo in a screenshot. */
  logo: () => solidPng(64, 64, [79, 70, 229]),
  png: (size = 256) => padded(PNG_HEAD, size),
  jpeg: (size = 256) => padded(JPEG_HEAD, size),
  webp: (size = 256) => padded(Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 ')]), size),
  gif: () => Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;'),
  svg: () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'),
  html: () => Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>'),
};

export const MB = 1024 * 1024;
