import { extname, join } from 'node:path';
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { applyLibvipsSettings, chosenLibvipsSettings, type LibvipsSettings } from './libvips-settings';

/** What every thread started from a ThreadModule is given. */
interface ThreadData {
  /** The starting thread's libvips settings, which the thread's own load of sharp resets. */
  libvips: LibvipsSettings;
}

/** Where a worker thread's module is, and the options its thread needs to load it. */
export interface ThreadModule {
  filename: string;
  execArgv: string[];
  workerData: ThreadData;
}

/**
 * The module `name` beside `callerFile` (pass `__filename`, and `__dirname` as `dir`), as a thread
 * loads it: the compiled `.js` in a build; run from the TypeScript sources (the specs), the
 * `.ts` compiled by ts-node in the thread, as the calling thread's module was.
 */
export function threadModule(dir: string, callerFile: string, name: string): ThreadModule {
  const extension = extname(callerFile);
  return {
    filename: join(dir, `${name}${extension}`),
    execArgv: extension === '.ts' ? ['--require', 'ts-node/register/transpile-only'] : [],
    workerData: { libvips: chosenLibvipsSettings() },
  };
}

/**
 * Called by a thread's module whose imports load sharp, once they have: the process's libvips
 * settings again (see libvips-settings.ts), as the thread that started this one had them.
 */
export function applyParentLibvipsSettings(): void {
  applyLibvipsSettings((workerData as ThreadData).libvips);
}

/**
 * One thread for `module`, kept for the life of the process: a model's session lives in it, so
 * tasks run there one at a time and the thread is never retired while idle.
 */
export function startSingleThread<Task>(module: ThreadModule): Piscina<Task, unknown> {
  return new Piscina({ ...module, minThreads: 1, maxThreads: 1, idleTimeout: Number.POSITIVE_INFINITY });
}
