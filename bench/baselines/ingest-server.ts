/**
 * Baseline for bench/ingest: POST /api/v1/builds as a careful hand-written server would take it,
 * with plain node:http, busboy and better-sqlite3 on a copy of the relay's database: the same PAT
 * check, the multipart body streamed to a temp file, the same metadata reader as the relay
 * (src/inspection), the app found or created by bundle id and the row inserted in one
 * transaction, the file renamed into place, 201 with the build summary.
 * With a fourth argument `raw`, the raw baseline: the same without reading the APK (fixed metadata
 * for the row and the answer), what a server that only stores uploads costs (issue 42's "concurrent
 * small uploads >= 0.35 of their raw baseline").
 * Usage: node -r ts-node/register/transpile-only bench/baselines/ingest-server.ts <sqlite> <data dir> [raw] <port>
 */
import Database from 'better-sqlite3';
import busboy from 'busboy';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, renameSync } from 'node:fs';
import { createServer, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { readApk } from '../../src/inspection/apk';

const [dbPath, dataDir, ...rest] = process.argv.slice(2);
const portArg = rest.pop();
const mode = rest[0];
const RAW_META = { name: 'Raw', versionName: '1.0', buildNumber: '1', bundleId: 'com.example.raw', platform: 'android' as const };
const db = new Database(dbPath);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
const tmpDir = join(dataDir, 'tmp');
const buildsDir = join(dataDir, 'builds');
mkdirSync(tmpDir, { recursive: true });
mkdirSync(buildsDir, { recursive: true });

const tokenQuery = db.prepare(
  `SELECT t.id, t.scope, t.expires_at FROM personal_access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?`,
);
const findApp = db.prepare(`SELECT id FROM apps WHERE bundle_id_key = ? AND platform IN (?, 'both') ORDER BY platform = ? DESC, id LIMIT 1`);
const insertApp = db.prepare('INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES (?, ?, ?, ?)');
const insertBuild = db.prepare(
  `INSERT INTO builds (app_id, name, version_name, build_number, version_label, status_label, platform, bundle_id,
     file_name, original_name, file_size, uploaded_at, completed_at, delete_after)
   VALUES (?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
);

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

createServer((req, res) => {
  const match = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const token = match
    ? (tokenQuery.get(createHash('sha256').update(match[1]).digest('hex')) as { scope: string; expires_at: number | null } | undefined)
    : undefined;
  if (!token || (token.expires_at !== null && token.expires_at <= Date.now())) return send(res, 401, { error: 'Unauthorized' });
  if (!token.scope.split(',').includes('builds:write')) return send(res, 403, { error: 'Forbidden' });
  const parser = busboy({ headers: req.headers, limits: { files: 1, fileSize: 500 * 1024 * 1024 } });
  let stored: Promise<{ path: string; size: number; name: string }> | null = null;
  parser.on('file', (_field, stream, info) => {
    const path = join(tmpDir, `upload-${randomBytes(8).toString('hex')}.part`);
    let size = 0;
    stream.on('data', (chunk: Buffer) => (size += chunk.length));
    stored = pipeline(stream, createWriteStream(path)).then(() => ({ path, size, name: info.filename ?? 'upload.apk' }));
  });
  parser.on('close', async () => {
    try {
      if (!stored) return send(res, 400, { error: 'file required' });
      const file = await stored;
      const meta = mode === 'raw' ? RAW_META : await readApk(file.path);
      const fileName = `${randomBytes(16).toString('hex')}.apk`;
      const now = Date.now();
      const row = db.transaction(() => {
        const app = findApp.get(meta.bundleId, meta.platform, meta.platform) as { id: number } | undefined;
        const appId = app ? app.id : Number(insertApp.run(meta.name, meta.bundleId, meta.platform, now).lastInsertRowid);
        const id = Number(
          insertBuild.run(appId, meta.name, meta.versionName, meta.buildNumber, meta.platform, meta.bundleId, fileName, file.name, file.size, now)
            .lastInsertRowid,
        );
        renameSync(file.path, join(buildsDir, fileName));
        return { id, appId };
      })();
      send(res, 201, {
        id: row.id,
        app_id: row.appId,
        name: meta.name,
        version_name: meta.versionName,
        build_number: meta.buildNumber,
        bundle_id: meta.bundleId,
        status_label: null,
        platform: meta.platform,
        uploaded_at: new Date(now).toISOString(),
      });
    } catch (err) {
      send(res, 400, { error: String(err) });
    }
  });
  req.pipe(parser);
}).listen(Number(portArg), '127.0.0.1', () => process.stdout.write(`baseline listening on ${portArg}\n`));
