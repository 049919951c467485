import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { randomHex } from '../common/crypto/secret-token';
import { FileStore } from '../storage/file-store';
import { sendFromStore, type StoredFileOptions } from '../storage/file-responses';

const PREFIX = 'builds/';

/**
 * Build files in the store under `builds/<generated name>`, never a client-chosen name. Only the
 * builds module touches them (upload, download, purge, sweep, deletion with an app).
 */
@Injectable()
export class BuildFiles {
  constructor(private readonly store: FileStore) {}

  /** A fresh storage name keeping the archive's extension (`.apk`, `.app.zip`, `.tar.gz`, `.tgz`). */
  newName(extension: string): string {
    return `${randomHex(16)}${extension}`;
  }

  /** Moves a received, inspected upload into the store under `fileName`. */
  keep(fileName: string, localPath: string): Promise<void> {
    return this.store.put(this.keyOf(fileName), localPath);
  }

  /** Streams the file as the response (Range, Content-Length); 404 `notFoundMessage` when it is gone. */
  send(res: Response, fileName: string, options: StoredFileOptions, notFoundMessage: string): Promise<void> {
    return sendFromStore(res, this.store, this.keyOf(fileName), options, notFoundMessage);
  }

  /** The file's path on this machine when the store is the data folder, else null (object storage). */
  localPath(fileName: string): string | null {
    return this.store.localPath(this.keyOf(fileName));
  }

  /** Removes files; a file already gone is fine. */
  async remove(fileNames: string[]): Promise<void> {
    await this.store.remove(fileNames.map((name) => this.keyOf(name)));
  }

  /** Names of the files in the builds folder, as the listing streams them (no stat per file). */
  async *names(): AsyncIterable<string> {
    for await (const key of this.store.list(PREFIX)) yield key.slice(PREFIX.length);
  }

  /** The SHA-256 (hex) of a stored file's bytes, read from the store as a stream; null when it is gone. */
  async sha256(fileName: string): Promise<string | null> {
    if (!(await this.store.stat(this.keyOf(fileName)))) return null;
    const hash = createHash('sha256');
    for await (const chunk of await this.store.read(this.keyOf(fileName))) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  /** A stored file's modification time, or null when it is not (or no longer) there. */
  async modifiedMs(fileName: string): Promise<number | null> {
    return (await this.store.stat(this.keyOf(fileName)))?.modifiedMs ?? null;
  }

  private keyOf(fileName: string): string {
    if (fileName.includes('/') || fileName.includes('\\') || fileName === '.' || fileName === '..') {
      throw new Error(`Refusing a build file name outside the builds folder: ${fileName}`);
    }
    return PREFIX + fileName;
  }
}
