import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';
import type { PostgresBinaries } from './postgres-binaries';

const run = promisify(execFile);

/** The system account PostgreSQL runs as when the service runs as root: PostgreSQL refuses root. */
export interface SystemAccount {
  uid: number;
  gid: number;
}

const ACCOUNT_NAME = 'postgres';

/**
 * Where PostgreSQL's programs and data go when its account cannot reach the clone: root's home
 * is commonly mode 700, and a fresh clone under it is out of every other user's reach.
 */
export const RELOCATION_ROOT = '/var/lib/image-jobs';

async function lookUpAccount(): Promise<SystemAccount | null> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', ACCOUNT_NAME]), run('id', ['-g', ACCOUNT_NAME])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  } catch {
    return null;
  }
}

/** The `postgres` system account, created (without a home or a login shell) when missing. */
export async function ensurePostgresAccount(): Promise<SystemAccount> {
  const existing = await lookUpAccount();
  if (existing) return existing;
  try {
    await run('groupadd', ['--system', '--force', ACCOUNT_NAME]);
    const noLogin = ['--no-create-home', '--shell', '/usr/sbin/nologin'];
    await run('useradd', ['--system', '--gid', ACCOUNT_NAME, ...noLogin, ACCOUNT_NAME]);
  } catch (error) {
    // Another process may have created it in the meantime; only a still-missing account is an error.
    const created = await lookUpAccount();
    if (created) return created;
    const reason = (error as Error).message.trim();
    throw new Error(`could not create the "${ACCOUNT_NAME}" system user PostgreSQL runs as (${reason})`, {
      cause: error,
    });
  }
  const created = await lookUpAccount();
  if (!created) throw new Error(`the "${ACCOUNT_NAME}" system user was created but cannot be found`);
  return created;
}

/**
 * Whether the account can search (`x`) or write (`w`) the path, asked of the system itself by
 * running `test` as that account: every folder on the way counts, as it does for PostgreSQL.
 */
export async function accountCan(account: SystemAccount, access: 'x' | 'w', path: string): Promise<boolean> {
  try {
    await run('test', [`-${access}`, path], { uid: account.uid, gid: account.gid });
    return true;
  } catch {
    return false;
  }
}

/**
 * The binaries where the account can run them: in place when it can, otherwise a copy under
 * RELOCATION_ROOT named by the package's version, made once (copied aside, then renamed, so a
 * concurrent or interrupted start never leaves half a copy in use).
 */
export async function reachableBinaries(
  binaries: PostgresBinaries,
  account: SystemAccount,
  logger: Logger,
): Promise<PostgresBinaries> {
  if (await accountCan(account, 'x', binaries.initdb)) return binaries;
  const installDir = join(RELOCATION_ROOT, `postgres-${binaries.version}`);
  const relocated = {
    ...binaries,
    installDir,
    initdb: join(installDir, 'bin', 'initdb'),
    postgres: join(installDir, 'bin', 'postgres'),
  };
  if (existsSync(relocated.postgres)) return relocated;
  logger.info({ from: binaries.installDir, to: installDir }, 'copying PostgreSQL where its system user can run it');
  await mkdir(RELOCATION_ROOT, { recursive: true });
  await chmod(RELOCATION_ROOT, 0o755);
  const staging = `${installDir}.${process.pid}.partial`;
  await cp(binaries.installDir, staging, { recursive: true, verbatimSymlinks: true });
  await chmod(staging, 0o755);
  try {
    await rename(staging, installDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(relocated.postgres)) throw error;
  }
  return relocated;
}

/**
 * The data folder where the account can keep it: `databaseDir` when the account can reach its
 * parent; otherwise a folder under RELOCATION_ROOT named by a hash of `databaseDir`, so each
 * clone keeps its own data and a restart finds it again.
 */
export async function reachableDataDir(databaseDir: string, account: SystemAccount, logger: Logger): Promise<string> {
  const parent = dirname(resolve(databaseDir));
  await mkdir(parent, { recursive: true });
  if (await accountCan(account, 'x', parent)) return databaseDir;
  const key = createHash('sha256').update(resolve(databaseDir)).digest('hex').slice(0, 16);
  const relocated = join(RELOCATION_ROOT, 'data', key);
  logger.info(
    { dataDir: parent, databaseDir: relocated },
    "PostgreSQL's system user cannot reach the data folder; its database is kept elsewhere",
  );
  await mkdir(dirname(relocated), { recursive: true });
  await chmod(RELOCATION_ROOT, 0o755);
  await chmod(dirname(relocated), 0o755);
  return relocated;
}
