/**
 * The one harness of the benchmarks that run the built service: a deployment of its own
 * (test/support/deployment.ts: a scratch database, a Redis key prefix, a storage folder, the
 * processes), removed when the benchmark ends, fails or is interrupted; the service's environment
 * as deployed; and the small helpers the benchmarks share.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { Deployment } from '../test/support/deployment';
import type { ServiceProcess } from '../test/support/processes';
import type { TestServices } from '../test/support/test-services';

export { freePort } from '../test/support/processes';
export type { Deployment } from '../test/support/deployment';
export type { ServiceProcess } from '../test/support/processes';

/** The PostgreSQL server and the Redis the benchmarks deploy on: DATABASE_URL and REDIS_URL, else the local ones. */
export const BENCH_SERVICES: TestServices = {
  databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

/** The admin token of this run's deployments. */
export const BENCH_ADMIN_TOKEN = `bench-${randomBytes(16).toString('hex')}`;

/**
 * The Node options the image runs the service with (Dockerfile, `NODE_OPTIONS`), so benchmarks measure it as deployed.
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=32';

/** The rest of the image's environment for the service (Dockerfile): production mode, glibc's arenas held to 2. */
export const AS_DEPLOYED = { NODE_ENV: 'production', NODE_OPTIONS: SERVICE_NODE_OPTIONS, MALLOC_ARENA_MAX: '2' };

const UNLIMITED = '1000000000';

/** Every create, poll and active-job limit raised out of reach, for load that must measure the work, not the limits. */
export const UNLIMITED_LIMITS = {
  LIMIT_CREATES_PER_HOUR_KEY: UNLIMITED,
  LIMIT_CREATES_PER_HOUR_ACCOUNT: UNLIMITED,
  LIMIT_CREATES_PER_HOUR_IP: UNLIMITED,
  LIMIT_POLLS_PER_HOUR_KEY: UNLIMITED,
  LIMIT_POLLS_PER_HOUR_ACCOUNT: UNLIMITED,
  LIMIT_POLLS_PER_HOUR_IP: UNLIMITED,
  LIMIT_ACTIVE_JOBS_PER_KEY: UNLIMITED,
  LIMIT_ACTIVE_JOBS_PER_ACCOUNT: UNLIMITED,
};

/** What the service (or a child measuring its code) would read from the benchmark's own environment. */
const PARENT_SETTINGS = [
  'DATABASE_URL',
  'REDIS_URL',
  'ADMIN_TOKEN',
  'PORT',
  'ROLE',
  'DATA_DIR',
  'LOG_LEVEL',
  'NODE_OPTIONS',
  'UV_THREADPOOL_SIZE',
  'VIPS_CONCURRENCY',
];

/** A benchmark's numeric knob: the environment variable `name`, or `fallback` when it is unset. */
export const numberSetting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/**
 * A child's environment: the parent's, without the settings the service reads and without the
 * benchmark's own knobs (names starting with `knobPrefix`), then `settings`: the child runs with
 * the service's defaults except what the benchmark sets.
 */
export function serviceEnv(settings: Record<string, string>, knobPrefix?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (PARENT_SETTINGS.includes(name) || (knobPrefix && name.startsWith(knobPrefix))) delete env[name];
  }
  return { ...env, ...settings };
}

/**
 * Runs `benchmark` on a deployment of its own named `bench-<name>`, removed afterwards: when it
 * ends, when it throws, and on SIGINT or SIGTERM (the service processes get SIGTERM and 30 s).
 */
export async function withDeployment<T>(name: string, benchmark: (deployment: Deployment) => Promise<T>): Promise<T> {
  const deployment = await Deployment.create(`bench-${name}`, { services: BENCH_SERVICES, stopGraceMs: 30_000 });
  const interrupted = (signal: NodeJS.Signals) => {
    process.stderr.write(`[bench:${name}] ${signal}: removing the deployment\n`);
    void deployment.close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    return await benchmark(deployment);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await deployment.close();
  }
}

/** VmRSS (now) or VmHWM (the peak so far) of a process's /proc/<pid>/status in MB; NaN once it has gone. */
export function memoryMb(service: ServiceProcess, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Resolves once `url` answers 2xx; rejects after `timeoutMs`. */
export async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // Not up yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

/** A BullMQ handle on a queue of the deployment, to read what the service keeps there; closed with it. */
export function serviceQueue(deployment: Deployment, name: string): Queue {
  const redis = new URL(deployment.redisUrl);
  const queue = new Queue(name, {
    prefix: `${deployment.redisPrefix}:bull`,
    connection: { host: redis.hostname, port: Number(redis.port || 6379), db: Number(redis.pathname.slice(1) || 0) },
  });
  deployment.onClose(() => queue.close());
  return queue;
}

/** A JSON POST to the service at `base` that must succeed: its answer, else an error with its status and body. */
export async function postOk(
  base: string,
  path: string,
  body: object,
  headers: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An account with `credits`, made through the admin API of the service at `base`; `auth` issues it a key. */
export async function createAccount(base: string, name: string, credits: number) {
  const admin = { Authorization: `Bearer ${BENCH_ADMIN_TOKEN}` };
  const { account } = (await postOk(base, '/admin/v1/accounts', { name, credits }, admin)) as {
    account: { id: string };
  };
  return {
    id: account.id,
    /** A new API key of the account, as the Authorization header that carries it. */
    auth: async (environment: 'live' | 'sandbox' = 'live') => {
      const issued = await postOk(base, `/admin/v1/accounts/${account.id}/api-keys`, { environment }, admin);
      return { Authorization: `Bearer ${issued.secret as string}` };
    },
  };
}
