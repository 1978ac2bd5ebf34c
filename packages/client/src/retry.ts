/** Statuses worth a second try: rate limits and capacity (with Retry-After) and server-side failures. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

export interface RetryDelayInput {
  /** 0 for the first retry. */
  retry: number;
  /** The answer's Retry-After, when it had one: waited exactly, never shortened. */
  retryAfterSeconds?: number;
  baseDelayMs?: number;
  maxBackoffMs?: number;
}

/**
 * The wait before a retry: the server's Retry-After when it gave one, else exponential backoff with jitter
 * (each wait between half and all of 0.5 s, 1 s, 2 s, ... up to `maxBackoffMs`), so clients that failed together do
 * not come back together.
 */
export function retryDelayMs(
  { retry, retryAfterSeconds, baseDelayMs = 500, maxBackoffMs = 8000 }: RetryDelayInput,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
  const ceiling = Math.min(maxBackoffMs, baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
