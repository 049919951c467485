import { Injectable } from '@nestjs/common';
import type { FileConfigstore } from '@tus/file-store';
import type { Server, Upload } from '@tus/server';
import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuthenticatedRequest } from '../../common/auth/principal.decorator';
import type { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { ErrorMessages } from '../../common/errors/error-messages';
import { badRequest, HttpError, notFound, payloadTooLarge } from '../../common/errors/http-error';
import { DISK_RESERVE_BYTES, freeBytes, HEAD_BYTES, notEnoughSpace } from '../../common/multipart/multipart-receiver';
import { leaveRequestDeadline } from '../../common/net/request-deadline';
import { StoragePaths } from '../../storage/storage-paths';
import { DAY_MS } from '../../common/time';
import { validateFields } from '../../common/validation/form-fields';
import { RelayConfig } from '../../config/relay-config';
import { buildTooLargeMessage, BuildIntakeService } from '../build-intake.service';
import { toBuildSummary } from '../builds.mapper';
import { UploadBuildFields } from '../dto/upload-build.dto';
import { createRelayFileStores } from './relay-file-store';
import { tusErrorAnswer } from './tus-errors';
import { tusModules } from './tus-modules';
import { isOwnUploadId, isUploadId, newUploadId, tusIdOf } from './upload-id';

/** The collection URL of resumable build uploads; each upload lives at `<this>/<id>`. */
export const RESUMABLE_UPLOADS_PATH = '/api/v1/uploads/builds'; // API_PREFIX (create-app.ts) + the controller's path
/** A partial upload untouched for this long (since its creation) is refused and swept. */
export const RESUMABLE_UPLOAD_TTL_MS = DAY_MS;
/** Upload-Metadata keys besides the POST /builds fields: the file's name, as tus clients send it. */
const FILENAME_KEY = 'filename';
/** The only tus extensions offered: the length is always declared, bytes always come by PATCH. */
const EXTENSIONS = ['creation', 'termination', 'expiration'];

/** tus's throttle for its progress event (unused here): the longest a PATCH's trailing timer lives. */
const POST_RECEIVE_INTERVAL_MS = 10;

/**
 * tus 1.0 resumable uploads of builds (docs/builds.md "Resumable uploads"), served by @tus/server
 * with partial files under `<data>/tmp/tus/`. The relay's own rules wrap the protocol: the route's
 * @Auth has already run (the controller), an upload belongs to the member who created it (its id
 * is `<their user id>-<32 hex>`, and tus acts on no other: upload-id.ts), creation is held to the
 * size limit, the disk reserve (with what open uploads still declare) and the POST
 * /builds field rules, and the request that completes an upload hands the finished file to the
 * same intake as POST /builds and answers its 201 build summary. Every error is `{ "error" }`.
 */
@Injectable()
export class ResumableUploadsService {
  private stores: ReturnType<typeof createRelayFileStores> | null = null;
  private server: Server | null = null;
  /** The upload id each HEAD/PATCH/DELETE was authorized for: the only id tus is given. */
  private readonly authorizedIds = new WeakMap<IncomingMessage, string>();
  readonly directory: string;

  constructor(
    private readonly config: RelayConfig,
    private readonly paths: StoragePaths,
    private readonly clock: Clock,
    private readonly intake: BuildIntakeService,
  ) {
    this.directory = join(paths.tmp, 'tus');
  }

  /** tus's info files (`<id>.json`), readable without the server (the sweep after a restart). */
  private get infos(): FileConfigstore {
    return (this.stores ??= createRelayFileStores(this.directory, RESUMABLE_UPLOAD_TTL_MS)).infos;
  }

  /** Made on first use: the store creates its folder, which a relay that never sees tus does without. */
  private tus(): Server {
    if (this.server) return this.server;
    this.stores ??= createRelayFileStores(this.directory, RESUMABLE_UPLOAD_TTL_MS);
    this.stores.store.extensions = EXTENSIONS;
    this.server = new (tusModules().Server)({
      path: RESUMABLE_UPLOADS_PATH,
      datastore: this.stores.store,
      // Relative: the relay may sit behind TLS or a proxy, so the Host/proto it sees may not be the client's.
      relativeLocation: true,
      // Advertised as Tus-Max-Size; a larger Upload-Length is refused (413, our message: tus-errors.ts).
      maxSize: this.config.maxBuildBytes,
      namingFunction: (req) => newUploadId(principalOf(req).userId),
      // tus would read the id from the URL (query string included); it gets the one handle() authorized.
      getFileIdFromRequest: (req) => this.authorizedIds.get(req),
      onUploadCreate: async (req, res, upload) => {
        await this.checkCreation(upload);
        return res;
      },
      onUploadFinish: (req, res, upload) => this.finish(req, res, upload),
      onResponseError: (req, res, err) => this.answerError(req, res, err),
      // Nothing here listens for tus's progress event, but tus throttles it with a timer that otherwise
      // holds the process for a second after each PATCH (a shutdown, a test worker's exit). 0 means 1 s.
      postReceiveInterval: POST_RECEIVE_INTERVAL_MS,
    });
    return this.server;
  }

  /**
   * One tus request, after the route's @Auth. HEAD/PATCH/DELETE reach only the caller's own uploads,
   * named by the route's id in the relay's form and by nothing else in the URL: another member's
   * id, an id in any other form, or a URL tus would read as another id answers 404 as if it did not
   * exist.
   */
  async handle(req: Request, res: Response, uploadId?: string): Promise<void> {
    // tus honours X-HTTP-Method-Override; the route's @Auth was chosen by the real method, so no override.
    delete req.headers['x-http-method-override'];
    if (uploadId !== undefined) {
      if (!isOwnUploadId(uploadId, principalOf(req).userId) || tusIdOf(req.url) !== uploadId) throw notFound(ErrorMessages.uploadNotFound);
      this.authorizedIds.set(req, uploadId);
    }
    checkTusHeaders(req);
    if (req.method === 'PATCH') {
      // Room for what every open upload still declares, this one included; the bytes are held to the
      // reserve again as they arrive (relay-file-store.ts), since a chunked body declares nothing.
      if (freeBytes(this.paths.tmp) < DISK_RESERVE_BYTES + (await this.declaredRemainder())) throw notEnoughSpace();
      // A large chunk on a slow line must not be cut by the whole-request deadline; the idle timer still applies.
      leaveRequestDeadline(req);
    }
    await this.tus().handle(req, res);
  }

  /**
   * Removes partial uploads created more than 24 h ago by the relay's clock (their data and info
   * files), and files of the folder that belong to no upload (a crash between the two writes of a
   * creation) once they are as old. Returns how many uploads were removed.
   */
  async sweepExpired(): Promise<number> {
    const cutoff = this.clock.nowMs() - RESUMABLE_UPLOAD_TTL_MS;
    const names = await readdir(this.directory).catch(() => [] as string[]);
    const ids = new Set(names.map((name) => name.replace(/\.json$/, '')));
    let removed = 0;
    for (const id of ids) {
      // a name not in the relay's form is no upload: a stray file, aged by its modification time
      const info = isUploadId(id) ? await this.infos.get(id) : undefined;
      const created = info?.creation_date
        ? Date.parse(info.creation_date)
        : await stat(join(this.directory, names.includes(id) ? id : `${id}.json`)).then((s) => s.mtimeMs, () => 0);
      if (created >= cutoff) continue;
      await this.discard(id);
      removed++;
    }
    return removed;
  }

  /** Upload-Length within the build limit and the disk reserve; the metadata as POST /builds fields. */
  private async checkCreation(upload: Upload): Promise<void> {
    const max = this.config.maxBuildBytes;
    if (upload.size === undefined) throw badRequest('Upload-Length is required');
    if (upload.size > max) throw payloadTooLarge(buildTooLargeMessage(max));
    const { fileName, fields } = splitMetadata(upload.metadata);
    if (!fileName) throw badRequest(`Upload-Metadata must name the file (${FILENAME_KEY})`);
    validateFields(UploadBuildFields, fields);
    // Room for this upload beside what the open ones still declare: each fits alone, not together.
    if (freeBytes(this.paths.tmp) < upload.size + DISK_RESERVE_BYTES + (await this.declaredRemainder())) throw notEnoughSpace();
  }

  /**
   * Bytes the open, unexpired uploads have declared and not sent yet (Upload-Length minus the bytes
   * held): the disk they may still claim, counted against the reserve before more is promised.
   */
  private async declaredRemainder(): Promise<number> {
    const cutoff = this.clock.nowMs() - RESUMABLE_UPLOAD_TTL_MS;
    const names = await readdir(this.directory).catch(() => [] as string[]);
    let remainder = 0;
    for (const name of names) {
      const id = name.replace(/\.json$/, '');
      if (id === name || !isUploadId(id)) continue;
      const info = await this.infos.get(id);
      if (info?.size === undefined || !info.creation_date || Date.parse(info.creation_date) < cutoff) continue;
      const held = await stat(join(this.directory, id)).then((s) => s.size, () => null);
      if (held !== null) remainder += Math.max(0, info.size - held);
    }
    return remainder;
  }

  /**
   * The last byte arrived: file the build through the intake and answer 201 with its summary (tus
   * itself would answer 204; its clients accept any 2xx). The upload is gone afterwards either way:
   * on success its file became the build, on refusal it is removed (as a refused POST /builds is).
   */
  private async finish(req: IncomingMessage, res: ServerResponse, upload: Upload) {
    const path = join(this.directory, upload.id);
    const { fileName, fields } = splitMetadata(upload.metadata);
    try {
      const file = { path, originalName: fileName, size: upload.size ?? 0, head: await readHead(path) };
      const build = await this.intake.receiveFile(file, fields, principalOf(req));
      return {
        res,
        status_code: 201,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify(toBuildSummary(build)),
      };
    } finally {
      await this.discard(upload.id);
    }
  }

  private async discard(id: string): Promise<void> {
    await rm(join(this.directory, id), { force: true });
    await rm(join(this.directory, `${id}.json`), { force: true });
  }

  /** Every refusal as `{ "error": message }`, like the global filter: tus's own, ours, unexpected ones. */
  private answerError(req: IncomingMessage, res: ServerResponse, err: unknown): { status_code: number; body: string } {
    const { status, message } = tusErrorAnswer(err, this.config.maxBuildBytes, `${req.method} ${req.url}`);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    return { status_code: status, body: JSON.stringify({ error: message }) };
  }
}

/**
 * The header checks tus.handle() answers in plain text without asking onResponseError: made here
 * first, so their refusals are `{ "error" }` too (through the global filter).
 */
function checkTusHeaders(req: Request): void {
  if (req.method === 'OPTIONS') return;
  if (req.headers['tus-resumable'] === undefined) throw new HttpError(412, 'Tus-Resumable header required (1.0.0)');
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'content-type' && req.method !== 'PATCH') continue;
    if (!tusModules().validateHeader(name, Array.isArray(value) ? value.join(', ') : value)) throw badRequest(`Invalid ${name} header`);
  }
}

function principalOf(req: IncomingMessage): Principal {
  const principal = (req as AuthenticatedRequest).principal;
  if (!principal) throw new Error('resumable upload request without a principal: the route lacks @Auth');
  return principal;
}

/** Upload-Metadata as the file's name plus the POST /builds text fields (a key without a value is blank). */
function splitMetadata(metadata: Upload['metadata']): { fileName: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata ?? {})) fields[key] = value ?? '';
  const fileName = fields[FILENAME_KEY] ?? '';
  delete fields[FILENAME_KEY];
  return { fileName, fields };
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
