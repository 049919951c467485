import { zipOf } from '../../support/zip-file';

/**
 * A minimal iOS simulator build (`<Name>.app.zip`, stored entries, XML Info.plist), written here so
 * the PATCH /builds webhook test needs no binary fixture.
 */
export function simulatorAppZip(info: { name: string; bundleId: string; version: string; build: string }): Buffer {
  const plist = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>${info.bundleId}</string>
<key>CFBundleName</key><string>${info.name}</string>
<key>CFBundleDisplayName</key><string>${info.name}</string>
<key>CFBundleExecutable</key><string>${info.name}</string>
<key>CFBundleShortVersionString</key><string>${info.version}</string>
<key>CFBundleVersion</key><string>${info.build}</string>
<key>CFBundlePackageType</key><string>APPL</string>
</dict></plist>
`;
  return zipOf([
    { name: `${info.name}.app/`, data: Buffer.alloc(0) },
    { name: `${info.name}.app/Info.plist`, data: Buffer.from(plist, 'utf8') },
    { name: `${info.name}.app/${info.name}`, data: Buffer.from('not really a binary\n') },
  ]);
}
