/** A timer set through the global `setTimeout` while it was watched. */
export interface WatchedTimer {
  /** The delay asked for, in milliseconds. */
  ms: number;
  fired: boolean;
  /** Cleared (clearTimeout) before it fired. */
  cleared: boolean;
}

export interface TimerWatch {
  /** Every timer set since the watch began, in the order they were set. */
  readonly timers: WatchedTimer[];
  /** Those that fired, in the order they fired. */
  readonly fired: WatchedTimer[];
  /** The timers of `ms` set so far. */
  of(ms: number): WatchedTimer[];
  /** Stops watching; timers already set still run as set. */
  restore(): void;
}

/**
 * Watches every timer set through the global `setTimeout` (the code under test's, and that of the
 * libraries it loads in the test's realm) while letting each run as it was set: the delays asked
 * for, and which of them fired, in order. A test can then say what a wait was (the provider's
 * Retry-After, a deadline) and what happened before it ended, rather than how long anything took.
 * `onFire` runs just before a timer's own callback, to note what the test sees at that moment.
 */
export function watchTimers(onFire?: (timer: WatchedTimer) => void): TimerWatch {
  const timers: WatchedTimer[] = [];
  const fired: WatchedTimer[] = [];
  const byHandle = new Map<unknown, WatchedTimer>();
  const realSetTimeout = global.setTimeout;
  const realClearTimeout = global.clearTimeout;
  const set = jest.spyOn(global, 'setTimeout').mockImplementation(((
    callback: (...args: unknown[]) => void,
    ms?: number,
    ...args: unknown[]
  ) => {
    const timer: WatchedTimer = { ms: ms ?? 0, fired: false, cleared: false };
    timers.push(timer);
    const handle = realSetTimeout(() => {
      timer.fired = true;
      fired.push(timer);
      onFire?.(timer);
      callback(...args);
    }, ms);
    byHandle.set(handle, timer);
    return handle;
  }) as unknown as typeof setTimeout);
  const clear = jest.spyOn(global, 'clearTimeout').mockImplementation(((handle?: NodeJS.Timeout) => {
    const timer = byHandle.get(handle);
    if (timer && !timer.fired) timer.cleared = true;
    realClearTimeout(handle);
  }) as typeof clearTimeout);
  return {
    timers,
    fired,
    of: (ms) => timers.filter((timer) => timer.ms === ms),
    restore: () => {
      set.mockRestore();
      clear.mockRestore();
    },
  };
}
