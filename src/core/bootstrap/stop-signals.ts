/**
 * A signal sent to a process group reaches this process twice within milliseconds: once
 * directly and once passed on by its parent (npm for `npm start`, the API primary for
 * `API_PROCESSES` > 1). A copy arriving this soon after the first is the same request to stop;
 * one arriving later is an operator asking again, which means "now".
 */
export const REPEATED_SIGNAL_WINDOW_MS = 1000;

export enum StopRequest {
  /** The first signal: shut down gracefully. */
  Graceful = 'graceful',
  /** A copy of the first signal: nothing to do. */
  Repeat = 'repeat',
  /** A later signal: exit at once. */
  Immediate = 'immediate',
}

/** Tells what each SIGTERM, SIGINT or SIGHUP asks for. */
export class StopSignals {
  private firstAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  received(): StopRequest {
    const now = this.now();
    if (this.firstAt === undefined) {
      this.firstAt = now;
      return StopRequest.Graceful;
    }
    return now - this.firstAt < REPEATED_SIGNAL_WINDOW_MS ? StopRequest.Repeat : StopRequest.Immediate;
  }
}
