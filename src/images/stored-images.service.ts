import { Injectable } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import type { Request } from 'express';
import { mkdirSync } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { randomHex } from '../common/crypto/secret-token';
import { badRequest } from '../common/errors/http-error';
import { FileFieldRule, receiveMultipart } from '../common/multipart/multipart-receiver';
import { StoragePaths } from '../common/storage/storage-paths';
import { removeUnreferencedFiles } from '../common/storage/unreferenced-files';
import { validateFields } from '../common/validation/form-fields';
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

/** A file to serve from the uploads folder. */
export interface ServedImage {
  fullPath: string;
  mime: string;
}

/** Names the relay gives stored files: folder, 32 random hex characters, the sniffed type's extension. */
const STORED_PATH = /^(avatars|logos|comments)\/[0-9a-f]{32}\.(png|jpg|webp)$/;

/**
 * Images members upload (avatars, the team logo, comment attachments): received by streaming,
 * accepted by their magic bytes, stored under generated names in `<data>/uploads/<folder>/`.
 * Paths handed out are relative to the uploads folder (`avatars/<name>.png`).
 */
@Injectable()
export class StoredImagesService {
  constructor(private readonly paths: StoragePaths) {
    for (const rule of Object.values(IMAGE_RULES)) mkdirSync(join(paths.uploads, rule.folder), { recursive: true });
  }

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
        accepted.push({ field: file.field, kind, type, mime: IMAGE_MIME[type], size: file.size, tempPath: file.path });
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

  /** Moves an accepted image into its folder under a random name; returns the path relative to uploads. */
  async keep(image: AcceptedImage): Promise<string> {
    const relative = `${IMAGE_RULES[image.kind].folder}/${randomHex(16)}.${IMAGE_EXTENSION[image.type]}`;
    await rename(image.tempPath, join(this.paths.uploads, relative));
    return relative;
  }

  /** Deletes a stored file (missing is fine). Paths not made by keep() are ignored. */
  async remove(relative: string | null | undefined): Promise<void> {
    if (!relative || !STORED_PATH.test(relative)) return;
    await unlink(join(this.paths.uploads, relative)).catch(() => undefined);
  }

  /** The file behind `/uploads/<relative>`, or null: only names the relay generated can be served. */
  async resolveServed(relative: string): Promise<ServedImage | null> {
    if (!STORED_PATH.test(relative)) return null;
    const fullPath = this.paths.inside(this.paths.uploads, relative);
    const type = imageTypeOfStoredName(relative);
    if (!fullPath || !type) return null;
    const info = await stat(fullPath).catch(() => null);
    return info?.isFile() ? { fullPath, mime: IMAGE_MIME[type] } : null;
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
    return removeUnreferencedFiles(join(this.paths.uploads, folder), namesInUse, graceMs, nowMs);
  }
}
