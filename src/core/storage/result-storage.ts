/** A stored file, ready to stream. */
export interface StoredFile {
  stream: NodeJS.ReadableStream;
  contentType: string;
  /** Bytes. */
  size: number;
}

export class InvalidStorageKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`Invalid storage key ${JSON.stringify(key.slice(0, 200))}: ${reason}`);
    this.name = InvalidStorageKeyError.name;
  }
}

const MAX_KEY_LENGTH = 512;
const KEY_CHARACTERS = /^[A-Za-z0-9._/-]+$/;
/**
 * Each `/`-separated segment starts with a letter or digit: no empty segments (`a//b`), no
 * `.`/`..`, and no hidden names, which drivers keep for their own files (temporary writes).
 */
const KEY_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Why `key` is not a storage key, or null when it is one. */
function keyProblem(key: string): string | null {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return `must be 1 to ${MAX_KEY_LENGTH} characters`;
  if (!KEY_CHARACTERS.test(key)) return 'only A-Z, a-z, 0-9, ".", "_", "-" and "/" are allowed';
  if (key.startsWith('/')) return 'must be relative';
  if (key.includes('..')) return 'must not contain ".."';
  if (!key.split('/').every((segment) => KEY_SEGMENT.test(segment))) {
    return 'each "/"-separated part must be non-empty and start with a letter or digit';
  }
  return null;
}

export function isValidStorageKey(key: string): boolean {
  return keyProblem(key) === null;
}

/**
 * Throws unless `key` is a safe relative key such as `results/<jobId>/<resultId>.png`. Every
 * driver calls it first, so a key can never address a file outside the store.
 */
export function assertValidStorageKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new InvalidStorageKeyError(key, problem);
}

/**
 * Where result images and thumbnails live. Local disk by default; an S3-compatible driver is
 * the production option (contract section 13). Keys look like `results/<jobId>/<resultId>.png`;
 * every method throws `InvalidStorageKeyError` for a key `assertValidStorageKey` refuses.
 */
export abstract class ResultStorage {
  /**
   * Stores `data` under `key`, replacing what was there; readers see the old or the new file,
   * never a part. When `signal` aborts before the file is in place, the write stops, leaves
   * nothing behind (no temporary file, no unfinished upload) and rejects.
   */
  abstract put(key: string, data: Buffer, contentType: string, signal?: AbortSignal): Promise<void>;

  /** The file under `key`, or null when there is none. The caller must consume or destroy the stream. */
  abstract open(key: string): Promise<StoredFile | null>;

  /** Removes the file under `key`; a missing file is not an error. */
  abstract delete(key: string): Promise<void>;
}
