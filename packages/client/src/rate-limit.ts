/** The `RateLimit-*` headers of an answer (contract section 10), for the limit with the least room. */
export interface RateLimitInfo {
  /** Requests allowed in the window. */
  limit: number;
  /** Requests left in the window. */
  remaining: number;
  /** Seconds until the oldest counted request leaves the window, freeing a slot. */
  resetSeconds: number;
}

function nonNegativeInteger(value: string | null): number | undefined {
  if (value == null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** The rate-limit headers of an answer, or undefined when it carries none (a route without a limit). */
export function rateLimitOf(headers: Headers): RateLimitInfo | undefined {
  const limit = nonNegativeInteger(headers.get('ratelimit-limit'));
  const remaining = nonNegativeInteger(headers.get('ratelimit-remaining'));
  const resetSeconds = nonNegativeInteger(headers.get('ratelimit-reset'));
  if (limit === undefined || remaining === undefined || resetSeconds === undefined) return undefined;
  return { limit, remaining, resetSeconds };
}

/**
 * `Retry-After` in seconds. The service sends an integer of at least 1 (contract section 2); an HTTP date, which
 * proxies may send, is turned into seconds from `now`.
 */
export function retryAfterSecondsOf(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value == null) return undefined;
  const seconds = nonNegativeInteger(value);
  if (seconds !== undefined) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * How long to wait before the next status poll: never less than `intervalMs`, and never faster than the polling limit
 * lets the key go on for good. The answer said `remaining` polls are left until a slot frees in `resetSeconds`, so
 * spreading them evenly over that time (`resetSeconds / remaining`) never runs the budget out: with the default of
 * 120 polls an hour that is one poll every 30 s, and it stretches by itself when other pollers share the key.
 */
export function nextPollDelayMs(intervalMs: number, rateLimit: RateLimitInfo | undefined): number {
  if (!rateLimit) return intervalMs;
  const pacedMs = (rateLimit.resetSeconds * 1000) / Math.max(1, rateLimit.remaining);
  return Math.max(intervalMs, Math.ceil(pacedMs));
}
