import { RequestFailedError, type RequestFailure } from './jobs-api';
import type { LimitKind, Pacing } from './pacing';

/** Tries after which a request that got no answer, or a 5xx without Retry-After, is given up. */
export const MAX_TRANSIENT_TRIES = 6;
/** Refusals with Retry-After waited out before a request is given up (hours of waiting at the default limits). */
export const MAX_REFUSALS = 200;

/** Tells the user why the run is waiting, and until when (null: not waiting any more). */
export type WaitListener = (reason: string | null, until?: number) => void;

/** The failure an error stands for; anything else (a bug, a full disk) has status -1 and is not retried. */
export const failureOf = (error: unknown): RequestFailure =>
  error instanceof RequestFailedError
    ? error.failure
    : { status: -1, code: 'client_error', message: error instanceof Error ? error.message : String(error) };

/** Backoff for a request without an answer: 1, 2, 4, 8, 16 s, then 30 s. */
export const transientDelaySeconds = (attempt: number): number => Math.min(30, 2 ** attempt);

const WHAT_IS_WAITED_FOR: Record<LimitKind, string> = {
  create: 'the create limit',
  poll: 'the polling limit',
  upload: 'the upload limit',
};

/**
 * Sends requests of one kind one at a time, each when `Pacing` says it may go, and resends
 * those refused for a limit (429, or 503 with Retry-After) after the wait they were told, or
 * those that got no answer after a backoff. Nothing is sent faster than that, so a run never
 * hammers the service, and each wait is reported with its end for the progress line.
 */
export class RequestGate {
  private readonly tails = new Map<LimitKind, Promise<void>>();

  constructor(
    private readonly pacing: Pacing,
    private readonly onWait: WaitListener,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Waits until `until`, saying why; returns at once when that is not in the future. */
  async waitUntil(until: number, reason: string): Promise<void> {
    if (until <= this.now()) return;
    this.onWait(reason, until);
    try {
      await this.sleep(until - this.now());
    } finally {
      this.onWait(null);
    }
  }

  private async turn<T>(kind: LimitKind, send: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(kind) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((done) => (release = done));
    this.tails.set(
      kind,
      previous.then(() => mine),
    );
    await previous;
    try {
      for (let next = this.pacing.nextAt(kind); next > this.now(); next = this.pacing.nextAt(kind)) {
        await this.waitUntil(next, `waiting for ${WHAT_IS_WAITED_FOR[kind]}`);
      }
      this.pacing.sent(kind);
      return await send();
    } finally {
      release();
    }
  }

  /**
   * Sends `send` in its turn, again after each limit refusal or transient failure, and throws
   * the `RequestFailure` of any other answer. `refusal` may take a refusal over (a create refused
   * for active jobs waits for a job rather than for the create limit): it resolves once the
   * request may be tried again, or returns false to leave the refusal to the gate.
   */
  async send<T>(
    kind: LimitKind,
    send: () => Promise<T>,
    refusal: (failure: RequestFailure) => Promise<boolean> | boolean = () => false,
  ): Promise<T> {
    let transient = 0;
    let refusals = 0;
    for (;;) {
      try {
        return await this.turn(kind, send);
      } catch (error) {
        const failure = failureOf(error);
        const limited = failure.status === 429 || (failure.status === 503 && failure.retryAfterSeconds !== undefined);
        if (limited && refusals < MAX_REFUSALS) {
          refusals += 1;
          if (await refusal(failure)) continue;
          this.pacing.refused(kind, failure.retryAfterSeconds ?? 1);
          continue;
        }
        if ((failure.status === 0 || failure.status >= 500) && transient + 1 < MAX_TRANSIENT_TRIES) {
          this.pacing.refused(kind, transientDelaySeconds(transient));
          transient += 1;
          continue;
        }
        throw new RequestFailedError(failure);
      }
    }
  }
}
