import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SLIDING_WINDOW_SCRIPT, SlidingWindowMode } from './sliding-window.lua';

/** { allowed (1|0), 1-based index of the reported key, its remaining, its reset in ms }. */
export type SlidingWindowReply = [allowed: number, index: number, remaining: number, resetMs: number];

const SCRIPT_SHA1 = createHash('sha1').update(SLIDING_WINDOW_SCRIPT).digest('hex');

/** Redis answers EVALSHA so when it has not cached the script (since a restart or SCRIPT FLUSH). */
const isScriptMissing = (error: unknown) => error instanceof Error && error.message.startsWith('NOSCRIPT');

/**
 * Runs the sliding-window script over `keys`, which must share a hash tag so the call is one
 * slot on Redis Cluster: EVALSHA, falling back to EVAL when Redis lacks the script.
 *
 * Not a command made with ioredis's `defineCommand`: the shared client pipelines the commands
 * of one event-loop turn together, and a batch opened earlier in the turn than the definition
 * lacks the new command. ioredis then rejects the call and throws from the batch's reply
 * handler, which killed an API process whose first limit check met a readiness probe's PING
 * (redis/ioredis#1931). EVALSHA and EVAL are in every batch.
 */
export async function runSlidingWindow(
  redis: Redis,
  mode: SlidingWindowMode,
  keys: readonly string[],
  windowMs: number,
  token: string,
  limits: readonly number[],
): Promise<SlidingWindowReply> {
  const args: [numberOfKeys: number, ...rest: Array<string | number>] = [
    keys.length,
    ...keys,
    mode,
    windowMs,
    token,
    ...limits,
  ];
  try {
    return (await redis.evalsha(SCRIPT_SHA1, ...args)) as SlidingWindowReply;
  } catch (error) {
    if (!isScriptMissing(error)) throw error;
    return (await redis.eval(SLIDING_WINDOW_SCRIPT, ...args)) as SlidingWindowReply;
  }
}
