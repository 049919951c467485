import { iconFilesFor, isBundleRootPng, largestIcon } from './ios-icon';

const png = (width: number, cgbi = false) => {
  const head = Buffer.from('89504e470d0a1a0a', 'hex');
  const chunk = (kind: string, data: Buffer) => Buffer.concat([Buffer.alloc(4), Buffer.from(kind, 'latin1'), data]);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(width, 4);
  return Buffer.concat([head, ...(cgbi ? [chunk('CgBI', Buffer.alloc(4))] : []), chunk('IHDR', ihdr)]);
};

describe('iOS icon files', () => {
  it('matches a base name to its scale and device variants, best scale first, plist order kept', () => {
    const files = ['AppIcon60x60@2x.png', 'AppIcon60x60@3x.png', 'AppIcon76x76@2x~ipad.png', 'AppIcon60x60X.png', 'Info.plist', 'Icon.png'];
    expect(iconFilesFor(['AppIcon60x60'], files)).toEqual(['AppIcon60x60@3x.png', 'AppIcon60x60@2x.png']);
    expect(iconFilesFor(['Icon.png', 'AppIcon76x76'], files)).toEqual(['Icon.png', 'AppIcon76x76@2x~ipad.png']);
    expect(iconFilesFor(['Missing'], files)).toEqual([]);
  });

  it('takes only PNGs at the top of a bundle at an accepted depth', () => {
    expect(isBundleRootPng('Demo.app/AppIcon60x60@2x.png')).toBe(true);
    expect(isBundleRootPng('build/Demo.app/Icon.png')).toBe(true);
    expect(isBundleRootPng('Demo.app/Frameworks/X.framework/Icon.png')).toBe(false);
    expect(isBundleRootPng('a/b/Demo.app/Icon.png')).toBe(false);
    expect(isBundleRootPng('__MACOSX/Demo.app/Icon.png')).toBe(false);
  });

  it('picks the widest standard PNG and skips CgBI ones and non-images', () => {
    expect(largestIcon([png(120), png(180, true), png(87), Buffer.from('not a png')])?.data.readUInt32BE(16)).toBe(120);
    expect(largestIcon([png(180, true)])).toBeNull();
    expect(largestIcon([])).toBeNull();
  });
});
