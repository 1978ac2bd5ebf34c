import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { ensureLocalRedis, type StartedService } from '../../src/core/bootstrap/development-services';
import { startEmbeddedPostgres } from '../../src/core/bootstrap/embedded-postgres/embedded-postgres';

const MACHINE_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const EMBEDDED_TEST_PORT = 54339;

declare global {
  // Services this run started, stopped by the global teardown.
  var startedTestServices: StartedService[] | undefined;
}

async function reachable(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates the database named in `url` when the server answers but the database is missing. */
async function ensureDatabase(url: string): Promise<boolean> {
  if (await reachable(url)) return true;
  const target = new URL(url);
  const name = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  if (!(await reachable(admin.toString()))) return false;
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
  return true;
}

/**
 * Uses DATABASE_URL and REDIS_URL when set; otherwise the machine's PostgreSQL and Redis on
 * their standard ports; otherwise starts embedded ones, as `npm start` does.
 */
export default async function globalSetup(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const started: StartedService[] = [];
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    if (await ensureDatabase(MACHINE_DATABASE_URL)) {
      databaseUrl = MACHINE_DATABASE_URL;
    } else {
      const postgres = await startEmbeddedPostgres(
        mkdtempSync(join(tmpdir(), 'imgjobs-test-')),
        EMBEDDED_TEST_PORT,
        logger,
      );
      started.push(postgres);
      databaseUrl = postgres.url;
    }
  } else if (!(await ensureDatabase(databaseUrl))) {
    throw new Error(`DATABASE_URL does not answer: ${new URL(databaseUrl).host}`);
  }
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const redis = await ensureLocalRedis(logger);
    started.push(redis);
    redisUrl = redis.url;
  }
  process.env.TEST_DATABASE_URL = databaseUrl;
  process.env.TEST_REDIS_URL = redisUrl;
  globalThis.startedTestServices = started;
}
