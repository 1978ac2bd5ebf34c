import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { assertValidStorageKey, ResultStorage, type StoredFile } from './result-storage';
import { assertContentTypeOfKey, contentTypeOfKey } from './stored-content-type';

/** Errors that mean "no file under this key" rather than a broken disk. */
const MISSING = new Set(['ENOENT', 'ENOTDIR']);

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

/**
 * Files under STORAGE_DIR, one per key. Writes go to a hidden temporary file in the same folder
 * and are renamed into place, so a reader (or a crash) never sees half a file.
 */
@Injectable()
export class LocalDiskStorage extends ResultStorage {
  private readonly root: string;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'STORAGE_DIR'>) {
    super();
    this.root = resolve(config.STORAGE_DIR);
  }

  async put(key: string, data: Buffer, contentType: string, signal?: AbortSignal): Promise<void> {
    const path = this.pathOf(key);
    assertContentTypeOfKey(key, contentType);
    signal?.throwIfAborted();
    const folder = dirname(path);
    await mkdir(folder, { recursive: true });
    // Hidden (keys never start a segment with ".") and random, so concurrent writers of one key
    // never share a temporary file and the last rename wins whole.
    const temporary = join(folder, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
    let handle: FileHandle | undefined;
    try {
      handle = await open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
      await handle.writeFile(data, { signal });
      // Flushed before the rename, so after a power cut the key holds the old file or the new
      // one, not an empty file the rename reached the disk ahead of.
      await handle.sync();
      await handle.close();
      handle = undefined;
      // The last point an abort stops the write: after the rename the file is whole and in place.
      signal?.throwIfAborted();
      await rename(temporary, path);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async open(key: string): Promise<StoredFile | null> {
    const path = this.pathOf(key);
    const contentType = contentTypeOfKey(key);
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDONLY);
    } catch (error) {
      if (MISSING.has(errorCode(error) ?? '')) return null;
      throw error;
    }
    try {
      // Size from the open descriptor, not the path: a rename after opening cannot make the
      // size disagree with the bytes streamed.
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        return null;
      }
      return { stream: handle.createReadStream(), contentType, size: stats.size };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (error) {
      if (!MISSING.has(errorCode(error) ?? '')) throw error;
    }
    // Empty folders are left in place: removing one could race a put that just created it.
  }

  private pathOf(key: string): string {
    assertValidStorageKey(key);
    const path = join(this.root, ...key.split('/'));
    // Redundant with the key rules; kept so a future change to them cannot open the whole disk.
    if (!path.startsWith(this.root + sep)) throw new Error(`Storage key ${key} resolves outside the store`);
    return path;
  }
}
