import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import * as tar from 'tar-stream';
import { emptyDir } from './cli-process';

export interface SimulatorBuild {
  path: string;
  bundleId: string;
  version: string;
  buildNumber: string;
}

/**
 * An iOS simulator build (`.tar.gz` of `<Name>.app/` with its Info.plist and executable), made on
 * the fly. `paddingBytes` adds an incompressible-size payload (gzip level 0) for large-upload tests.
 */
export async function simulatorBuild(options: { name?: string; bundleId?: string; version?: string; buildNumber?: string; paddingBytes?: number } = {}): Promise<SimulatorBuild> {
  const name = options.name ?? 'SampleApp';
  const bundleId = options.bundleId ?? 'com.example.sample';
  const version = options.version ?? '1.4.0';
  const buildNumber = options.buildNumber ?? '42';
  const plist = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
  <key>CFBundleIdentifier</key><string>${bundleId}</string>
  <key>CFBundleName</key><string>${name}</string>
  <key>CFBundleDisplayName</key><string>${name}</string>
  <key>CFBundleExecutable</key><string>${name}</string>
  <key>CFBundleShortVersionString</key><string>${version}</string>
  <key>CFBundleVersion</key><string>${buildNumber}</string>
  <key>CFBundlePackageType</key><string>APPL</string>
  <key>CFBundleSupportedPlatforms</key><array><string>iPhoneSimulator</string></array>
  <key>DTPlatformName</key><string>iphonesimulator</string>
  <key>MinimumOSVersion</key><string>16.0</string>
</dict></plist>
`;
  const path = join(emptyDir('svc-build-'), `${name}.tar.gz`);
  const pack = tar.pack();
  const written = pipeline(pack, createGzip({ level: options.paddingBytes ? 0 : 6 }), createWriteStream(path));
  pack.entry({ name: `${name}.app/`, type: 'directory' });
  pack.entry({ name: `${name}.app/Info.plist` }, plist);
  pack.entry({ name: `${name}.app/${name}`, mode: 0o755 }, Buffer.from('\xcf\xfa\xed\xfe fake mach-o', 'latin1'));
  if (options.paddingBytes) {
    const entry = pack.entry({ name: `${name}.app/Assets.car`, size: options.paddingBytes });
    await pipeline(zeros(options.paddingBytes), entry);
  }
  pack.finalize();
  await written;
  return { path, bundleId, version, buildNumber };
}

function zeros(total: number): Readable {
  const chunk = Buffer.alloc(1024 * 1024);
  let left = total;
  return new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}
