/** How long to keep polling, and how long to pause between two reads. */
export interface Polling {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Pauses for `ms`: to let time pass (a window, a TTL, a backoff) or to give a worker the chance
 * to do what it must not.
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads `read` until `done` holds for what it returned, and returns that value. Fails after
 * `timeoutMs` naming `what`: a function of the last value read when that explains the failure.
 */
export async function readUntil<T>(
  read: () => Promise<T> | T,
  done: (value: T) => boolean,
  what: string | ((last: T) => string),
  { timeoutMs = 20_000, intervalMs = 100 }: Polling = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what(value)}`);
    }
    await sleep(intervalMs);
  }
}

/** Polls `check` until it holds, failing with `what` after `timeoutMs`. */
export async function until(check: () => Promise<boolean> | boolean, what: string, polling?: Polling): Promise<void> {
  await readUntil(check, (holds) => holds, what, polling);
}
