import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * What every model this service prepares from an npm package shares: finding the installed
 * package, hashing, and the prepared file under MODELS_DIR, written atomically with a `.sha256`
 * sidecar so several workers starting at once never read half a file.
 */

/** An installed package: its folder and the version its package.json declares. */
export interface InstalledPackage {
  dir: string;
  version: string;
}

/**
 * The folder of an installed package. A package with an `exports` map may not export its
 * package.json (and one without a main entry has only its package.json to resolve), so when the
 * package.json cannot be resolved directly the main entry is, and the folders above it are
 * searched for the package.json that names the package.
 */
export async function installedPackage(name: string): Promise<InstalledPackage> {
  let file: string;
  try {
    file = require.resolve(`${name}/package.json`);
  } catch (notExported) {
    const entry = resolvedOrNull(name);
    if (entry === null) throw notExported;
    file = await packageJsonAbove(entry, name);
  }
  const { version } = JSON.parse(await readFile(file, 'utf8')) as { version: string };
  return { dir: path.dirname(file), version };
}

function resolvedOrNull(name: string): string | null {
  try {
    return require.resolve(name);
  } catch {
    return null;
  }
}

async function packageJsonAbove(entry: string, name: string): Promise<string> {
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    const manifest = await readFile(file, 'utf8').catch(nullWhenMissing);
    if (manifest !== null && (JSON.parse(manifest) as { name?: string }).name === name) return file;
  }
  throw new Error(`No package.json of ${name} above ${entry}`);
}

export function sha256Of(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Streams the file through the hash, so checking a prepared model does not load it whole. */
export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** A file's bytes, refused unless their sha256 is `expected`: the conversions are written for exact inputs. */
export async function verifiedFile(
  file: string,
  expected: string,
  refuse: (problem: string) => Error,
): Promise<Buffer> {
  const bytes = await readFile(file).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw refuse(`${path.basename(file)} is missing`);
    throw error;
  });
  if (sha256Of(bytes) !== expected) throw refuse(`${path.basename(file)} is not the file this code was written for`);
  return bytes;
}

const sidecarOf = (modelPath: string) => `${modelPath}.sha256`;

/** The sha256 of a prepared model that matches its sidecar, or null when either is missing or they differ. */
export async function preparedModelSha256(modelPath: string): Promise<string | null> {
  const recorded = await readFile(sidecarOf(modelPath), 'utf8').catch(nullWhenMissing);
  if (recorded === null) return null;
  const actual = await sha256OfFile(modelPath).catch(nullWhenMissing);
  return actual === recorded.trim() ? actual : null;
}

/**
 * Writes a prepared model and then its sidecar, each atomically, and answers the model's sha256.
 * The model goes first and the sidecar last: a sidecar on disk always describes a complete model.
 */
export async function writePreparedModel(modelPath: string, model: Uint8Array): Promise<string> {
  const dir = path.dirname(modelPath);
  await mkdir(dir, { recursive: true });
  await removeAbandonedTemporaries(dir);
  const sha256 = sha256Of(model);
  await writeAtomically(modelPath, model);
  await writeAtomically(sidecarOf(modelPath), Buffer.from(`${sha256}\n`));
  return sha256;
}

/**
 * Writes a temporary file beside `target`, flushes it to disk and renames it over `target`, so a
 * process that opens `target` (several workers may start at once) sees the old file or the whole
 * new one, never part of it.
 */
async function writeAtomically(target: string, data: Uint8Array): Promise<void> {
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const file = await open(temporary, 'wx');
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** A temporary file this old was left by a process that died while writing (several workers never take this long). */
const ABANDONED_AFTER_MS = 15 * 60_000;

/** Temporaries of processes killed mid-write (up to about 176 MB each) would otherwise stay forever. */
async function removeAbandonedTemporaries(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.tmp')) continue;
    const file = path.join(dir, name);
    const info = await stat(file).catch(nullWhenMissing);
    if (info && now - info.mtimeMs > ABANDONED_AFTER_MS) await unlink(file).catch(() => undefined);
  }
}

function nullWhenMissing(error: unknown): null {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  throw error;
}
