/**
 * The part of the grace period kept after the hand-back: aborted work stops, its queue entries
 * go back to waiting and the connections close before the process's grace timer fires. A
 * quarter of the grace, at least 1 s and at most 5 s.
 */
const MIN_RESERVE_MS = 1000;
const MAX_RESERVE_MS = 5000;

/** How a stopping worker spends its shutdown grace period, in milliseconds from the signal. */
export interface DrainSchedule {
  /** Running results may finish until then; those still running are handed back to the queue. */
  handBackAfterMs: number;
  /**
   * Aborted work is waited for until then, so a model is never released while a tool still
   * runs on it; the rest of the grace is for closing connections.
   */
  settleByMs: number;
}

/** The drain of a worker whose process exits SHUTDOWN_GRACE_SECONDS after the signal. */
export function drainSchedule(graceSeconds: number): DrainSchedule {
  const graceMs = graceSeconds * 1000;
  const reserveMs = Math.min(MAX_RESERVE_MS, Math.max(MIN_RESERVE_MS, graceMs / 4));
  const handBackAfterMs = Math.max(0, graceMs - reserveMs);
  return { handBackAfterMs, settleByMs: handBackAfterMs + (graceMs - handBackAfterMs) / 2 };
}
