import type { Redis } from 'ioredis';
import { SLIDING_WINDOW_SCRIPT, SlidingWindowMode } from './sliding-window.lua';

/** { allowed (1|0), 1-based index of the reported key, its remaining, its reset in ms }. */
export type SlidingWindowReply = [allowed: number, index: number, remaining: number, resetMs: number];

const COMMAND = 'rateLimitSlidingWindow';

type SlidingWindowRedis = Redis &
  Record<typeof COMMAND, (...args: Array<string | number>) => Promise<SlidingWindowReply>>;

/**
 * Runs the sliding-window script (EVALSHA, falling back to EVAL) over `keys`, which must share a
 * hash tag so the call is one slot on Redis Cluster.
 */
export function runSlidingWindow(
  redis: Redis,
  mode: SlidingWindowMode,
  keys: readonly string[],
  windowMs: number,
  token: string,
  limits: readonly number[],
): Promise<SlidingWindowReply> {
  if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { lua: SLIDING_WINDOW_SCRIPT });
  return (redis as SlidingWindowRedis)[COMMAND](keys.length, ...keys, mode, windowMs, token, ...limits);
}
