import { extname, join } from 'node:path';
import { Piscina } from 'piscina';

/** Where a worker thread's module is, and the options its thread needs to load it. */
export interface ThreadModule {
  filename: string;
  execArgv: string[];
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
  };
}

/**
 * One thread for `module`, kept for the life of the process: a model's session lives in it, so
 * tasks run there one at a time and the thread is never retired while idle.
 */
export function startSingleThread<Task>(module: ThreadModule): Piscina<Task, unknown> {
  return new Piscina({ ...module, minThreads: 1, maxThreads: 1, idleTimeout: Number.POSITIVE_INFINITY });
}
