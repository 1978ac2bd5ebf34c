import { setTimeout as sleep } from 'node:timers/promises';

/** How long a queue or worker still connecting at shutdown is given to finish connecting. */
export const CONNECTION_SETTLE_MS = 2000;

interface Connecting {
  waitUntilReady(): Promise<unknown>;
}

/**
 * Waits, at most `boundMs`, for a BullMQ queue or worker to finish connecting. Closing one whose
 * connection is still being set up makes BullMQ reject that set-up after it has removed every
 * listener, which surfaces as an unhandled "Connection is closed" error (taskforcesh/bullmq#3546,
 * open at 5.81): a worker started and stopped within a moment, or a rolling restart that stops
 * a pod just scheduled, would end on it. A Redis that is down does not hold the shutdown longer
 * than the bound.
 */
export async function connectionSettled(connecting: Connecting, boundMs = CONNECTION_SETTLE_MS): Promise<void> {
  const timeout = new AbortController();
  await Promise.race([
    connecting.waitUntilReady().catch(() => undefined),
    sleep(boundMs, undefined, { signal: timeout.signal, ref: false }).catch(() => undefined),
  ]);
  timeout.abort();
}
