/**
 * The soak's floor (bench/soak, issue 27 item 1): the soak's seven kinds of request answered as a careful
 * hand-written server would, with plain node:http, @fastify/busboy, bcrypt and the driver, on the
 * database the relay's soak left (same rows, members, sessions and PAT). It does less than the relay
 * on purpose, so that it is a floor: no audit entries, no webhooks, no events, no request log, no
 * metrics, no framework, and an upload's contents (permissions, libraries) are not computed or compared.
 * What it does do is the database work each request needs, an upload's metadata read with the relay's
 * own APK reader (src/inspection/apk.ts, as the ingest baseline), and for reads the
 * relay's own statements (build-list.repository.ts, compiled by its QueryBuilder, run as named
 * statements on PostgreSQL as the relay's pool does): the PAT or session check (and the PAT's last
 * use, at most once a minute), the list's page with its total (a `q` list's counts kept while no write
 * changed them, SearchTotals) and its rows, a build's row, a build's comments with their
 * attachments; a comment (with its image written to disk) or an upload (the file written, then its
 * rows) in one transaction, a status change with its history row, and a sign-in (bcrypt of the
 * relay's prehash, then a session row). The answers carry the rows as the driver gives them. Two more
 * ways it does less: on PostgreSQL every statement is a named one (the relay names only its SELECTs), and
 * GET /comments' statement is the relay's written out as text (the relay builds it in CommentsService).
 * Where even this server misses a target on this machine, no server doing this work meets it here.
 * Usage: node -r ts-node/register/transpile-only bench/baselines/soak-server.ts <sqlite file | postgres url> <files dir> <port>
 */
import { Busboy } from '@fastify/busboy';
import bcrypt from 'bcrypt';
import type { Compilable } from 'kysely';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listed, pageIds, PageValues, pageValues, shapeOf, textCounts } from '../../src/builds/build-list.repository';
import { textCountsKey, withIndexedQ } from '../../src/builds/build-search.repository';
import { readApk } from '../../src/inspection/apk';
import type { BuildPageQuery, BuildSortField } from '../../src/builds/build-page';
import { SearchTotals, TextCounts } from '../../src/builds/search-totals';
import { QueryBuilder } from '../../src/database/query-builder/query-builder';
import { bearerHash, send, type TokenRow } from './list-query';
import { openDb } from './soak-db';

const [target, filesDir, portArg] = process.argv.slice(2);
const postgres = /^postgres(ql)?:/.test(target);

const db = openDb(target, postgres);
const builder = QueryBuilder.for(postgres ? 'postgres' : 'sqlite');
const textTotals = new SearchTotals();

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

interface Member {
  id: number;
  email: string;
  display_name: string | null;
}

/** The PAT check of list-query.ts, with the token's owner for what the request writes. */
async function byPat(req: IncomingMessage): Promise<Member> {
  const hash = bearerHash(req.headers.authorization);
  if (hash === null) throw new HttpError(401, 'Unauthorized');
  const [token] = await db.all<TokenRow & { user_id: number; email: string; display_name: string | null }>(
    `SELECT t.id, t.user_id, t.scope, t.expires_at, t.last_used_at, u.email, u.display_name
       FROM personal_access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ? AND u.active`,
    [hash],
  );
  const now = Date.now();
  if (!token || (token.expires_at !== null && Number(token.expires_at) <= now)) throw new HttpError(401, 'Unauthorized');
  if (!token.scope.split(',').includes('builds:write')) throw new HttpError(403, 'Forbidden');
  if (now - Number(token.last_used_at) >= 60_000) await db.all('UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?', [now, token.id]);
  return { id: token.user_id, email: token.email, display_name: token.display_name };
}

/** The session cookie's row and its live member. */
async function bySession(req: IncomingMessage): Promise<Member> {
  const match = /(?:^|;\s*)svc_token=([^;]+)/.exec(req.headers.cookie ?? '');
  if (!match) throw new HttpError(401, 'Unauthorized');
  const [member] = await db.all<Member>(
    'SELECT u.id, u.email, u.display_name FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ? AND u.active',
    [sha256(match[1]), Date.now()],
  );
  if (!member) throw new HttpError(401, 'Unauthorized');
  return member;
}

/** A multipart body's fields, and its one file written to `dir` under a random name (null when none). */
function multipart(req: IncomingMessage, dir: string): Promise<{ fields: Record<string, string>; file: { path: string; name: string; size: number } | null }> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: Promise<{ path: string; name: string; size: number }> | null = null;
    const busboy = new Busboy({ headers: req.headers as { 'content-type': string }, limits: { fileSize: 50 * 1024 * 1024, files: 1 } });
    busboy.on('field', (name: string, value: string) => (fields[name] = value));
    busboy.on('file', (_field: string, stream: NodeJS.ReadableStream, filename: string) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      file = new Promise((done) =>
        stream.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const path = join(dir, `${randomBytes(12).toString('hex')}${filename.slice(filename.lastIndexOf('.'))}`);
          // Written under a temporary name, then renamed: a reader never sees half a file.
          writeFileSync(`${path}.part`, bytes);
          renameSync(`${path}.part`, path);
          done({ path, name: filename, size: bytes.length });
        }),
      );
    });
    busboy.on('finish', () => (file ?? Promise.resolve(null)).then((f) => resolve({ fields, file: f }), reject));
    busboy.on('error', reject);
    req.pipe(busboy);
  });
}

function body(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString()));
      } catch {
        reject(new HttpError(400, 'Bad JSON'));
      }
    });
    req.on('error', reject);
  });
}

/** The list's parameters the soak sends (the relay validates more; a bad value here is a 400 all the same). */
function pageQuery(search: URLSearchParams): BuildPageQuery {
  const number = (name: string, fallback: number) => {
    const value = search.get(name);
    if (value !== null && !/^\d+$/.test(value)) throw new HttpError(400, `${name} must be a non-negative integer`);
    return value === null ? fallback : Number(value);
  };
  const sort = (search.get('sort') ?? 'uploaded_at') as BuildSortField;
  const dir = search.get('dir') ?? 'desc';
  if (!['uploaded_at', 'version_name', 'status_label'].includes(sort) || (dir !== 'asc' && dir !== 'desc')) throw new HttpError(400, 'bad sort');
  return {
    page: number('page', 0),
    limit: Math.min(100, Math.max(1, number('limit', 20))),
    sort,
    dir,
    ...(search.get('q') ? { q: search.get('q')! } : {}),
    ...(search.get('status') ? { status: search.get('status') as BuildPageQuery['status'] } : {}),
    ...(search.get('platform') ? { platform: search.get('platform') as BuildPageQuery['platform'] } : {}),
    ...(search.get('app_id') ? { appId: number('app_id', 0) } : {}),
  };
}

/** A statement the relay prepares, run with these values. */
function run<V extends object, R>(key: string, build: (v: V) => Compilable<unknown>, values: V): Promise<R[]> {
  const statement = builder.prepare(key, build);
  return db.all<R>(statement.sql, statement.parameters(values), true);
}

/** These builds' rows with their uploader, icon, flags and provenance (the relay's `listed`), in the order given. */
async function rowsOf(ids: number[]): Promise<Record<string, unknown>[]> {
  if (!ids.length) return [];
  const rows = await run<number[], Record<string, unknown>>(`listed ${ids.length}`, (v) => listed(builder.db, v, ids.length, postgres), ids);
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

/** GET /builds as the relay reads a page that is not deep (BuildsRepository.findPage, findTextPage). */
async function listPage(asked: BuildPageQuery): Promise<{ items: Record<string, unknown>[]; total: number }> {
  const query = withIndexedQ(asked);
  const values = pageValues(query, postgres);
  const shape = shapeOf(query);
  if (!query.q && !query.searchTerms) {
    const page = await run<PageValues, { id: number | string; total: number | string }>(`page ${shape}`, (v) => pageIds(builder.db, v, query, postgres), values);
    return { items: await rowsOf(page.map((row) => Number(row.id))), total: Number(page[0]?.total ?? 0) };
  }
  const count = async (): Promise<TextCounts> => {
    const [row] = await run<PageValues, { builds: number | string; total: number | string }>(`textCounts ${shape}`, (v) => textCounts(builder.db, v, query, postgres), values);
    return { builds: Number(row.builds), total: Number(row.total) };
  };
  const [changes] = await db.all<{ n: number | string }>('SELECT n FROM build_list_changes WHERE id = 1');
  const counts = await textTotals.get(textCountsKey(query)!, Number(changes.n), count);
  if (counts.total === 0 || values.offset >= counts.total) return { items: [], total: counts.total };
  const page = await run<PageValues, { id: number | string }>(`textPage ${shape}`, (v) => pageIds(builder.db, v, query, postgres, 'walk', false), values);
  return { items: await rowsOf(page.map((row) => Number(row.id))), total: counts.total };
}

const STATUSES = ['Backlog', 'In Progress', 'Done', 'Rejected', null];
const commentsDir = join(filesDir, 'comments');
const buildsDir = join(filesDir, 'builds');
mkdirSync(commentsDir, { recursive: true });
mkdirSync(buildsDir, { recursive: true });

async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname;
  const buildId = /^\/api\/v1\/builds\/(\d+)$/.exec(path)?.[1];
  if (req.method === 'GET' && path === '/api/v1/builds') {
    await byPat(req);
    return send(res, 200, await listPage(pageQuery(url.searchParams)));
  }
  if (req.method === 'GET' && buildId) {
    await byPat(req);
    const [row] = await rowsOf([Number(buildId)]);
    if (!row) throw new HttpError(404, 'Build not found');
    return send(res, 200, row);
  }
  if (req.method === 'GET' && path === '/api/v1/comments') {
    await bySession(req);
    const id = Number(url.searchParams.get('build_id'));
    // The relay's statement (CommentsService.commentsOf): from the build's row, its comments, authors and attachments.
    const rows = await db.all<{ id: number | null }>(
      `SELECT c.id, c.author_id, c.author_display_name, c.author_email, c.body, c.created_at, u.display_name AS user_display_name,
              u.email AS user_email, u.avatar_path AS user_avatar_path, a.id AS attachment_id, a.file_path, a.mime, a.size
         FROM builds b LEFT JOIN comments c ON c.build_id = b.id LEFT JOIN users u ON u.id = c.author_id
         LEFT JOIN comment_attachments a ON a.comment_id = c.id WHERE b.id = ? ORDER BY c.id, a.id`,
      [id],
    );
    if (!rows.length) throw new HttpError(404, 'Build not found');
    return send(res, 200, { items: rows.filter((r) => r.id !== null) });
  }
  if (req.method === 'POST' && path === '/api/v1/comments') {
    const member = await byPat(req);
    const { fields, file } = await multipart(req, commentsDir);
    const build = Number(fields.build_id);
    if (!build || !fields.body) throw new HttpError(400, 'build_id and body are required');
    const id = await db.transaction(async (q) => {
      const [exists] = await q.all('SELECT id FROM builds WHERE id = ?', [build]);
      if (!exists) throw new HttpError(404, 'Build not found');
      const [comment] = await q.all<{ id: number }>(`INSERT INTO comments (build_id, author_id, author_display_name, author_email, body, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, [
        build,
        member.id,
        member.display_name,
        member.email,
        fields.body,
        Date.now(),
      ]);
      if (file) await q.all('INSERT INTO comment_attachments (comment_id, file_path, mime, size) VALUES (?, ?, ?, ?)', [comment.id, `comments/${file.path.slice(commentsDir.length + 1)}`, 'image/png', file.size]);
      return comment.id;
    });
    return send(res, 201, { id, build_id: build, body: fields.body });
  }
  if (req.method === 'POST' && path === '/api/v1/builds') {
    const member = await byPat(req);
    const { file } = await multipart(req, buildsDir);
    if (!file) throw new HttpError(400, 'file is required');
    // The relay's own APK reader, as the ingest baseline does: an upload's answer is its metadata.
    const meta = await readApk(file.path, file.size);
    const bundle = meta.bundleId;
    const version = [meta.versionName, meta.buildNumber ? `(${meta.buildNumber})` : ''].join(' ').trim() || null;
    const now = Date.now();
    const build = await db.transaction(async (q) => {
      let [app] = await q.all<{ id: number }>('SELECT id FROM apps WHERE bundle_id_key = ? AND platform = ?', [bundle, 'android']);
      if (!app) [app] = await q.all<{ id: number }>(`INSERT INTO apps (name, bundle_id_key, platform, created_at) VALUES (?, ?, ?, ?) RETURNING id`, [meta.name, bundle, 'android', now]);
      const [row] = await q.all<{ id: number }>(
        `INSERT INTO builds (app_id, name, version_name, build_number, version_label, status_label, platform, bundle_id, file_name, original_name, file_size, uploaded_at)
         VALUES (?, ?, ?, ?, ?, NULL, 'android', ?, ?, ?, ?, ?) RETURNING id`,
        [app.id, meta.name, meta.versionName, meta.buildNumber, version, bundle, file.path.slice(buildsDir.length + 1), file.name, file.size, now],
      );
      await q.all('INSERT INTO build_status_changes (build_id, from_status, to_status, changed_by_id, changed_by_display_name, changed_by_email, changed_at) VALUES (?, NULL, NULL, ?, ?, ?, ?)', [
        row.id,
        member.id,
        member.display_name,
        member.email,
        now,
      ]);
      return { id: row.id, app_id: app.id };
    });
    return send(res, 201, build);
  }
  if (req.method === 'PATCH' && buildId) {
    const member = await bySession(req);
    const { status_label: status } = (await body(req)) as { status_label?: string | null };
    if (status === undefined || !STATUSES.includes(status)) throw new HttpError(400, 'status_label must be one of the four or null');
    const changed = await db.transaction(async (q) => {
      const [before] = await q.all<{ status_label: string | null }>(`SELECT status_label FROM builds WHERE id = ?${postgres ? ' FOR UPDATE' : ''}`, [Number(buildId)]);
      if (!before) throw new HttpError(404, 'Build not found');
      const now = Date.now();
      await q.all('UPDATE builds SET status_label = ?, completed_at = ? WHERE id = ?', [status, status === 'Done' || status === 'Rejected' ? now : null, Number(buildId)]);
      await q.all('INSERT INTO build_status_changes (build_id, from_status, to_status, changed_by_id, changed_by_display_name, changed_by_email, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        Number(buildId),
        before.status_label,
        status,
        member.id,
        member.display_name,
        member.email,
        now,
      ]);
      return true;
    });
    return send(res, 200, { id: Number(buildId), status_label: status, changed });
  }
  if (req.method === 'POST' && path === '/api/v1/auth/login') {
    const { email, password } = (await body(req)) as { email?: string; password?: string };
    if (typeof email !== 'string' || typeof password !== 'string') throw new HttpError(400, 'email and password are required');
    const [user] = await db.all<{ id: number; password_hash: string }>('SELECT id, password_hash FROM users WHERE email = ? AND active', [email]);
    // The relay's scheme: bcrypt of the password's SHA-256 in base64 (src/users/password-hasher.ts).
    const prehashed = createHash('sha256').update(password, 'utf8').digest('base64');
    if (!user || !(await bcrypt.compare(prehashed, user.password_hash))) throw new HttpError(401, 'Invalid e-mail or password');
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await db.all('INSERT INTO sessions (user_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)', [user.id, sha256(token), now, now + 7 * 86_400_000]);
    return send(res, 200, { id: user.id }, { 'Set-Cookie': `svc_token=${token}; HttpOnly; SameSite=Lax; Path=/` });
  }
  throw new HttpError(404, 'Not found');
}

createServer((req, res) => {
  route(req, res).catch((err: Error) => {
    if (res.headersSent) return res.destroy();
    req.resume();
    send(res, err instanceof HttpError ? err.status : 500, { error: err.message });
  });
}).listen(Number(portArg), '127.0.0.1', () => process.stdout.write(`baseline listening on ${portArg}\n`));
// Exit on SIGTERM (the soak's stop) so that `--cpu-prof` (BENCH_PROFILE) writes the floor's profile.
process.on('SIGTERM', () => process.exit(0));
