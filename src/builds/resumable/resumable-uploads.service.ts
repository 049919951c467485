import { HttpException, Injectable, Logger } from '@nestjs/common';
import type { FileConfigstore } from '@tus/file-store';
import type { Server, Upload } from '@tus/server';
import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuthenticatedRequest } from '../../common/auth/principal.decorator';
import type { Principal } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import { randomHex } from '../../common/crypto/secret-token';
import { ErrorMessages } from '../../common/errors/error-messages';
import { badRequest, HttpError, notFound, payloadTooLarge } from '../../common/errors/http-error';
import { DISK_RESERVE_BYTES, freeBytes, HEAD_BYTES, notEnoughSpace } from '../../common/multipart/multipart-receiver';
import { leaveRequestDeadline } from '../../common/net/request-deadline';
import { StoragePaths } from '../../common/storage/storage-paths';
import { DAY_MS } from '../../common/time';
import { validateFields } from '../../common/validation/form-fields';
import { RelayConfig } from '../../config/relay-config';
import { tusHeaderValidator, type TusHeaderValidator } from '../../platform/tus/header-validator';
import { buildTooLargeMessage, BuildIntakeService } from '../build-intake.service';
import { toBuildSummary } from '../builds.mapper';
import { UploadBuildFields } from '../dto/upload-build.dto';

/** The collection URL of resumable build uploads; each upload lives at `<this>/<id>`. */
export const RESUMABLE_UPLOADS_PATH = '/api/v1/uploads/builds'; // API_PREFIX (create-app.ts) + the controller's path
/** A partial upload untouched for this long (since its creation) is refused and swept. */
export const RESUMABLE_UPLOAD_TTL_MS = DAY_MS;
/** Upload-Metadata keys besides the POST /builds fields: the file's name, as tus clients send it. */
const FILENAME_KEY = 'filename';
/** The only tus extensions offered: the length is always declared, bytes always come by PATCH. */
const EXTENSIONS = ['creation', 'termination', 'expiration'];

type TusModules = typeof import('@tus/server') & typeof import('@tus/file-store') & { validateHeader: TusHeaderValidator };
let loadedTus: TusModules | null = null;

/**
 * @tus/server and @tus/file-store, loaded with the first resumable upload or the first sweep that
 * finds one: a relay whose clients never use tus does not load them (start-up time and idle memory,
 * docs/decisions.md#s1).
 */
function tusModules(): TusModules {
  return (loadedTus ??= {
    ...(require('@tus/server') as typeof import('@tus/server')),
    ...(require('@tus/file-store') as typeof import('@tus/file-store')),
    // Not re-exported by the package index; the same check tus.handle() makes, run first so its refusal is JSON.
    validateHeader: tusHeaderValidator(),
  });
}

/**
 * tus 1.0 resumable uploads of builds (docs/builds.md "Resumable uploads"), served by @tus/server
 * with partial files under `<data>/tmp/tus/`. The relay's own rules wrap the protocol: the route's
 * @Auth has already run (the controller), an upload belongs to the member who created it (its id
 * starts with their user id), creation is held to the size limit, the disk reserve and the POST
 * /builds field rules, and the request that completes an upload hands the finished file to the
 * same intake as POST /builds and answers its 201 build summary. Every error is `{ "error" }`.
 */
@Injectable()
export class ResumableUploadsService {
  private readonly logger = new Logger('ResumableUploads');
  /** tus's info files (`<id>.json`), readable without the server (the sweep after a restart). */
  private infoStore: FileConfigstore | null = null;
  private server: Server | null = null;
  readonly directory: string;

  constructor(
    private readonly config: RelayConfig,
    private readonly paths: StoragePaths,
    private readonly clock: Clock,
    private readonly intake: BuildIntakeService,
  ) {
    this.directory = join(paths.tmp, 'tus');
  }

  private get infos(): FileConfigstore {
    return (this.infoStore ??= new (tusModules().FileConfigstore)(this.directory));
  }

  /** Made on first use: the store creates its folder, which a relay that never sees tus does without. */
  private tus(): Server {
    if (this.server) return this.server;
    const { FileStore: TusFileStore, Server } = tusModules();
    const store = new TusFileStore({
      directory: this.directory,
      configstore: this.infos,
      expirationPeriodInMilliseconds: RESUMABLE_UPLOAD_TTL_MS,
    });
    store.extensions = EXTENSIONS;
    this.server = new Server({
      path: RESUMABLE_UPLOADS_PATH,
      datastore: store,
      // Relative: the relay may sit behind TLS or a proxy, so the Host/proto it sees may not be the client's.
      relativeLocation: true,
      // Advertised as Tus-Max-Size; a larger Upload-Length is refused (413, our message: answerError).
      maxSize: this.config.maxBuildBytes,
      namingFunction: (req) => `${principalOf(req).userId}-${randomHex(16)}`,
      onUploadCreate: async (req, res, upload) => {
        this.checkCreation(upload);
        return res;
      },
      onUploadFinish: (req, res, upload) => this.finish(req, res, upload),
      onResponseError: (req, res, err) => this.answerError(req, res, err),
    });
    return this.server;
  }

  /**
   * One tus request, after the route's @Auth. HEAD/PATCH/DELETE reach only the caller's own uploads
   * (another member's id answers 404 as if it did not exist).
   */
  async handle(req: Request, res: Response, uploadId?: string): Promise<void> {
    // tus honours X-HTTP-Method-Override; the route's @Auth was chosen by the real method, so no override.
    delete req.headers['x-http-method-override'];
    if (uploadId !== undefined && !ownedBy(uploadId, principalOf(req))) throw notFound(ErrorMessages.uploadNotFound);
    checkTusHeaders(req);
    if (req.method === 'PATCH') {
      const remaining = Number(req.headers['content-length']) || 0;
      if (freeBytes(this.paths.tmp) < remaining + DISK_RESERVE_BYTES) throw notEnoughSpace();
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
      const info = await this.infos.get(id);
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
  private checkCreation(upload: Upload): void {
    const max = this.config.maxBuildBytes;
    if (upload.size === undefined) throw badRequest('Upload-Length is required');
    if (upload.size > max) throw payloadTooLarge(buildTooLargeMessage(max));
    if (freeBytes(this.paths.tmp) < upload.size + DISK_RESERVE_BYTES) throw notEnoughSpace();
    const { fileName, fields } = splitMetadata(upload.metadata);
    if (!fileName) throw badRequest(`Upload-Metadata must name the file (${FILENAME_KEY})`);
    validateFields(UploadBuildFields, fields);
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
    let status = 500;
    let message: string = ErrorMessages.internal;
    if (err instanceof HttpException) {
      status = err.getStatus();
      message = String(err.getResponse());
    } else if (err === tusModules().ERRORS.ERR_MAX_SIZE_EXCEEDED) {
      status = 413;
      message = buildTooLargeMessage(this.config.maxBuildBytes);
    } else if (isTusError(err)) {
      status = err.status_code;
      message = err.body.trim();
    } else {
      const error = err instanceof Error ? err : new Error(String(err));
      this.logger.error(`${req.method} ${req.url} failed: ${error.message}`, error.stack);
    }
    if (status >= 500 && !(err instanceof HttpException)) message = ErrorMessages.internal;
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

function ownedBy(uploadId: string, principal: Principal): boolean {
  return uploadId.startsWith(`${principal.userId}-`);
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

function isTusError(err: unknown): err is { status_code: number; body: string } {
  return typeof err === 'object' && err !== null && typeof (err as { status_code?: unknown }).status_code === 'number'
    && typeof (err as { body?: unknown }).body === 'string';
}
