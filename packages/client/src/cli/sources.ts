import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { sniffImageType } from '../content-type';
import { sha256Hex } from './canonical';
import { UsageError } from './tool-requests';
import { assignStems } from './naming';

/** Extensions a folder given on the command line is searched for (the service's source types). */
const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.gif', '.tif', '.tiff', '.avif', '.heic']);

/** A local image to process: where it is, the hash of its bytes, and the stem its result is named by. */
export interface SourceFile {
  path: string;
  contentHash: string;
  stem: string;
}

/** The files named on the command line; a folder stands for the images directly inside it. */
export async function expandSourcePaths(args: readonly string[]): Promise<string[]> {
  const paths: string[] = [];
  for (const arg of args) {
    const path = resolve(arg);
    const info = await stat(path).catch(() => null);
    if (!info) throw new UsageError(`${arg}: no such file or folder`);
    if (info.isDirectory()) {
      const names = (await readdir(path)).filter((name) => IMAGE_EXTENSIONS.has(extname(name).toLowerCase()));
      paths.push(...names.sort().map((name) => join(path, name)));
    } else {
      paths.push(path);
    }
  }
  if (paths.length === 0) throw new UsageError('no image files given');
  return [...new Set(paths)];
}

/** A file named on the command line that cannot be sent, and why, in words for the summary. */
export interface SourceProblem {
  path: string;
  reason: string;
}

/** The files a run sends, and those it cannot, each failing alone. */
export interface SourceScan {
  sources: SourceFile[];
  problems: SourceProblem[];
}

const describeReadError = (error: unknown): string => {
  const { code, message } = error as NodeJS.ErrnoException;
  switch (code) {
    case 'ENOENT':
      return 'cannot be read: no such file (a link to nothing?)';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read: permission denied';
    case 'EISDIR':
      return 'cannot be read: it is a folder';
    default:
      return `cannot be read: ${code ?? message}`;
  }
};

/**
 * Why a file cannot be sent, read from the file alone, or null when it can: it must be a regular
 * file (never a folder or a pipe, which would block the run), readable, not empty, and start as
 * an image the service reads. Limits the service sets (bytes, pixels) are its to judge: it
 * refuses the upload, and the file fails alone then.
 */
async function problemOf(path: string): Promise<{ reason: string } | { bytes: Buffer }> {
  const info = await stat(path).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (info instanceof Error) return { reason: describeReadError(info) };
  if (info.isDirectory()) return { reason: 'cannot be read: it is a folder' };
  if (!info.isFile()) return { reason: 'cannot be read: not a regular file' };
  const bytes = await readFile(path).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (bytes instanceof Error) return { reason: describeReadError(bytes) };
  if (bytes.length === 0) return { reason: 'empty file' };
  if (!sniffImageType(bytes)) return { reason: 'not an image: its bytes are no format the service reads' };
  return { bytes };
}

/**
 * Each file with its content hash and output stem, in path order, and apart from them the files
 * that cannot be sent (unreadable, empty, not an image), so that one bad file fails alone. Stems
 * are assigned over every path, so a good file's name never depends on whether another is bad.
 */
export async function readSources(args: readonly string[]): Promise<SourceScan> {
  const paths = await expandSourcePaths(args);
  const stems = assignStems(paths);
  const scan: SourceScan = { sources: [], problems: [] };
  for (const path of [...stems.keys()]) {
    const checked = await problemOf(path);
    if ('reason' in checked) scan.problems.push({ path, reason: checked.reason });
    else scan.sources.push({ path, contentHash: sha256Hex(checked.bytes), stem: stems.get(path) ?? '' });
  }
  return scan;
}
