import { crc32 } from 'node:zlib';

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
  return zipStored([
    { name: `${info.name}.app/`, data: Buffer.alloc(0) },
    { name: `${info.name}.app/Info.plist`, data: Buffer.from(plist, 'utf8') },
    { name: `${info.name}.app/${info.name}`, data: Buffer.from('not really a binary\n') },
  ]);
}

function zipStored(entries: { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by Unix
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE((name.endsWith('/') ? 0o40755 : 0o100644) * 0x10000, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const centralDir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralDir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralDir, end]);
}
