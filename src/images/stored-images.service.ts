import { Injectable } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { randomHex } from '../common/crypto/secret-token';
import { badRequest } from '../common/errors/http-error';
import { FileFieldRule, receiveMultipart } from '../common/multipart/multipart-receiver';
import { StoragePaths } from '../storage/storage-paths';
import { validateFields } from '../common/validation/form-fields';
import { FileStore } from '../storage/file-store';
import { ORPHAN_FILE_GRACE_MS, StoredFileOwners } from '../storage/stored-file-owners';
import { removeUnreferencedFiles } from '../storage/unreferenced-files';
import { IMAGE_EXTENSION, IMAGE_MIME, ImageType, imageTypeOfStoredName, sniffImageType } from './image-type';

const MB = 1024 * 1024;

export type ImageKind = 'avatar' | 'logo' | 'attachment';
export type UploadFolder = 'avatars' | 'logos' | 'comments';

interface ImageRule {
  folder: UploadFolder;
  maxBytes: number;
  types: ImageType[];
  /** How the allowed types and size read in an error message. */
  describe: string;
}

/** spec §8: avatar and logo PNG/JPEG ≤ 2 MB; comment attachment PNG/JPEG/WebP ≤ 5 MB. */
export const IMAGE_RULES: Record<ImageKind, ImageRule> = {
  avatar: { folder: 'avatars', maxBytes: 2 * MB, types: ['png', 'jpeg'], describe: 'a PNG or JPEG image of at most 2 MB' },
  logo: { folder: 'logos', maxBytes: 2 * MB, types: ['png', 'jpeg'], describe: 'a PNG or JPEG image of at most 2 MB' },
  attachment: {
    folder: 'comments',
    maxBytes: 5 * MB,
    types: ['png', 'jpeg', 'webp'],
    describe: 'a PNG, JPEG or WebP image of at most 5 MB',
  },
};

/** A received image whose bytes were checked, still in the temp folder. */
export interface AcceptedImage {
  field: string;
  kind: ImageKind;
  type: ImageType;
  mime: string;
  size: number;
  tempPath: string;
}

/** A received form: its text fields validated into `F`, and its accepted images. */
export interface ImageForm<F extends object> {
  fields: F;
  image(field: string): AcceptedImage | undefined;
  /** Removes temp files that were not kept. Safe to call more than once, and after keep(). */
  discard(): Promise<void>;
}

/** A stored image to serve under /uploads/. */
export interface ServedImage {
  key: string;
  mime: string;
}

/** Prefix of every image's key in the store: `uploads/<folder>/<name>` (the data folder's old layout). */
const UPLOADS = 'uploads/';
/** Names the relay gives stored files: folder, 32 random hex characters, the sniffed type's extension. */
const STORED_PATH = /^(avatars|logos|comments)\/[0-9a-f]{32}\.(png|jpg|webp)$/;

/**
 * Images members upload (avatars, the team logo, comment attachments): received by streaming,
 * accepted by their magic bytes, stored under generated names as `uploads/<folder>/<name>` in the
 * store. Paths handed out are relative to `uploads/` (`avatars/<name>.png`).
 */
@Injectable()
export class StoredImagesService {
  /**
   * For each accepted image still in its form's temp folder, how to tell the form that keep() moved
   * it: the form's discard() then leaves the old path alone (an unlink of a name already gone was
   * one more thread-pool trip per image, docs/decisions.md#issue-27-writes).
   */
  private readonly kept = new WeakMap<AcceptedImage, () => void>();

  constructor(
    private readonly paths: StoragePaths,
    private readonly store: FileStore,
    private readonly owners: StoredFileOwners,
  ) {}

  /**
   * Receives a multipart form whose file fields are images of the given kinds. Size limits apply
   * while bytes arrive (413); a file that is not an allowed image is 400; then the text fields go
   * through `fieldsType` (validateFields, 400). On failure nothing stays on disk.
   */
  async receive<F extends object>(
    req: Request,
    images: Record<string, ImageKind>,
    fieldsType: ClassConstructor<F>,
  ): Promise<ImageForm<F>> {
    const files: Record<string, FileFieldRule> = {};
    for (const [field, kind] of Object.entries(images)) {
      files[field] = { maxBytes: IMAGE_RULES[kind].maxBytes, tooLargeMessage: `${field} must be ${IMAGE_RULES[kind].describe}` };
    }
    const form = await receiveMultipart(req, { tmpDir: this.paths.tmp, files });
    const accepted: AcceptedImage[] = [];
    let fields: F;
    try {
      for (const file of form.files) {
        const kind = images[file.field];
        const type = sniffImageType(file.head);
        if (!type || !IMAGE_RULES[kind].types.includes(type)) throw badRequest(`${file.field} must be ${IMAGE_RULES[kind].describe}`);
        const image: AcceptedImage = { field: file.field, kind, type, mime: IMAGE_MIME[type], size: file.size, tempPath: file.path };
        this.kept.set(image, () => form.moved(file));
        accepted.push(image);
      }
      fields = validateFields(fieldsType, form.fields);
    } catch (err) {
      await form.cleanup();
      throw err;
    }
    return {
      fields,
      image: (field) => accepted.find((a) => a.field === field),
      discard: () => form.cleanup(),
    };
  }

  /** A new random name for an accepted image, relative to uploads (keep() stores it there). */
  nameFor(image: AcceptedImage): string {
    return `${IMAGE_RULES[image.kind].folder}/${randomHex(16)}.${IMAGE_EXTENSION[image.type]}`;
  }

  /**
   * Moves an accepted image into the store under `relative` (a new random name unless the caller
   * chose one with nameFor() first, to announce it before the file appears); returns that path.
   */
  async keep(image: AcceptedImage, relative = this.nameFor(image)): Promise<string> {
    await this.store.put(UPLOADS + relative, image.tempPath, image.mime);
    this.kept.get(image)?.();
    return relative;
  }

  /** Deletes a stored file (missing is fine). Paths not made by keep() are ignored. */
  async remove(relative: string | null | undefined): Promise<void> {
    if (!relative || !STORED_PATH.test(relative)) return;
    await this.store.remove([UPLOADS + relative]).catch(() => undefined);
  }

  /** The file behind `/uploads/<relative>`, or null: only names the relay generated can be served. */
  async resolveServed(relative: string): Promise<ServedImage | null> {
    if (!STORED_PATH.test(relative)) return null;
    const type = imageTypeOfStoredName(relative);
    if (!type) return null;
    const key = UPLOADS + relative;
    return (await this.store.stat(key)) ? { key, mime: IMAGE_MIME[type] } : null;
  }

  /** The served image's bytes (rejects when it was removed since resolveServed). */
  open(image: ServedImage): Promise<Readable> {
    return this.store.read(image.key);
  }

  /**
   * Registers the images of `folder` for the hourly orphan sweep ("unreferenced uploads"), called
   * by the module whose rows reference them; `referenced` returns paths relative to uploads.
   */
  registerOwner(folder: UploadFolder, referenced: () => Promise<Iterable<string>>): void {
    this.owners.register({
      orphans: 'unreferenced uploads',
      every: 'hour',
      graceMs: ORPHAN_FILE_GRACE_MS,
      sweepOrphans: (graceMs) => this.sweepOrphans(folder, async () => new Set(await referenced()), graceMs),
    });
  }

  /**
   * Deletes files in a folder that no row references (left by a deleted build's comments, a crash
   * between steps); `referenced` returns paths relative to uploads (`comments/<name>.png`).
   */
  sweepOrphans(
    folder: UploadFolder,
    referenced: () => Promise<Set<string>>,
    graceMs: number,
    nowMs = Date.now(),
  ): Promise<number> {
    const prefix = `${folder}/`;
    const namesInUse = async () =>
      new Set([...(await referenced())].filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)));
    return removeUnreferencedFiles(this.store, `${UPLOADS}${prefix}`, namesInUse, graceMs, nowMs);
  }
}
