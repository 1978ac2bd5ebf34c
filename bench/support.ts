/** Small helpers the benchmarks share: ports, readiness, limits out of the way, and removing their Redis keys. */
import { Redis } from 'ioredis';

export { freePort } from '../test/support/processes';

const UNLIMITED = '1000000000';

/**
 * The Node options the image runs the service with (Dockerfile, `NODE_OPTIONS`), so benchmarks measure it as deployed.
 */
export const SERVICE_NODE_OPTIONS = '--max-semi-space-size=32';

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

/** Deletes every key under `prefix:` (the service's REDIS_KEY_PREFIX of a benchmark run). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}
