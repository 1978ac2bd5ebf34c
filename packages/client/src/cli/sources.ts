import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
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

export function hashFile(path: string): Promise<string> {
  return new Promise((done, fail) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', fail)
      .on('end', () => done(hash.digest('hex')));
  });
}

/** Each file with its content hash and output stem, in path order. */
export async function readSources(args: readonly string[]): Promise<SourceFile[]> {
  const paths = await expandSourcePaths(args);
  const stems = assignStems(paths);
  const sources: SourceFile[] = [];
  for (const path of [...stems.keys()]) {
    sources.push({ path, contentHash: await hashFile(path), stem: stems.get(path) ?? '' });
  }
  return sources;
}
