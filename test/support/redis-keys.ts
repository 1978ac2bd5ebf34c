import { Redis } from 'ioredis';

/** Deletes every key of the Redis at `redisUrl` matching `pattern` (`<prefix>:*` for a REDIS_KEY_PREFIX). */
export async function deleteRedisKeys(redisUrl: string, pattern: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
