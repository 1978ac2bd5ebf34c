import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

const run = promisify(execFile);
const POLL_MS = 100;

/** A process as the system describes it: its parent and its command line. */
export interface ProcessInfo {
  ppid: number;
  args: string[];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** /proc where there is one (the exact arguments), `ps` elsewhere (arguments split on spaces). */
async function describeProcess(pid: number): Promise<ProcessInfo | null> {
  try {
    const [cmdline, stat] = await Promise.all([
      readFile(`/proc/${pid}/cmdline`, 'utf8'),
      readFile(`/proc/${pid}/stat`, 'utf8'),
    ]);
    // stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1], 10);
    return { ppid, args: cmdline.split('\0').filter(Boolean) };
  } catch {
    try {
      const { stdout } = await run('ps', ['-o', 'ppid=', '-o', 'args=', '-p', String(pid)]);
      const [ppid, ...args] = stdout.trim().split(/\s+/);
      return ppid ? { ppid: Number.parseInt(ppid, 10), args } : null;
    } catch {
      return null;
    }
  }
}

/** Whether the command line is a postgres server (the postmaster) of exactly this data folder. */
export function isPostmasterOf(args: string[], databaseDir: string): boolean {
  const flag = args.indexOf('-D');
  return basename(args[0] ?? '') === 'postgres' && flag > 0 && resolve(args[flag + 1] ?? '') === resolve(databaseDir);
}

/** Whether the command line is this service's (`node dist/main.js …`), which would still be using its database. */
export const isServiceProcess = (args: string[]): boolean => args.some((arg) => /(^|\/)main\.js$/.test(arg));

async function exitedWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((next) => setTimeout(next, POLL_MS));
  }
  return true;
}

/**
 * After a hard stop of the service (SIGKILL, a crash), the embedded PostgreSQL it ran keeps
 * running and holds `postmaster.pid`, and a new server on the same data folder refuses to start.
 * That server is stopped here (fast shutdown: connections closed, data checkpointed) when the
 * lock file names a live postgres of this very data folder whose service is gone. A lock file
 * naming a process that no longer exists is left to PostgreSQL, which replaces it. Anything else
 * (a process that is not this folder's postgres, or one a running service still uses) is never
 * signalled: the returned reason says why the server cannot start.
 */
export async function stopLeftoverServer(
  databaseDir: string,
  logger: Logger,
  stopTimeoutMs: number,
): Promise<string | null> {
  let lockFile: string;
  try {
    lockFile = await readFile(join(databaseDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const pid = Number.parseInt(lockFile.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return null;
  const server = await describeProcess(pid);
  if (!server) return null;
  if (!isPostmasterOf(server.args, databaseDir)) {
    return `${join(databaseDir, 'postmaster.pid')} names process ${pid}, which is not this data folder's PostgreSQL`;
  }
  const parent = server.ppid > 1 ? await describeProcess(server.ppid) : null;
  if (parent && isServiceProcess(parent.args)) {
    return `the data folder is in use by another running instance of the service (process ${server.ppid})`;
  }
  logger.warn({ postgresPid: pid, databaseDir }, 'stopping the embedded PostgreSQL left running by an earlier run');
  process.kill(pid, 'SIGINT');
  if (await exitedWithin(pid, stopTimeoutMs)) return null;
  // Immediate shutdown: the server and its backends exit without a checkpoint (recovered at start).
  process.kill(pid, 'SIGQUIT');
  if (await exitedWithin(pid, stopTimeoutMs)) return null;
  return `the PostgreSQL left running by an earlier run (process ${pid}) did not stop`;
}
