/** What a limited response said about its limit (contract section 10): `RateLimit-*` headers. */
export interface RateLimitReading {
  limit: number;
  remaining: number;
  /** Seconds until the window frees its oldest slot. */
  resetSeconds: number;
}

/** The limits the command line paces itself by: creates (and cancels), polls, and uploads. */
export type LimitKind = 'create' | 'poll' | 'upload';

/** How soon the first poll of a job may go, and how far the gap between polls of an unchanged job grows. */
export const POLL_INTERVAL = { firstMs: 1000, growth: 1.5, maxMs: 20_000 } as const;

interface Budget {
  reading: RateLimitReading | null;
  readAt: number;
  /** A refusal's Retry-After, as an instant. */
  refusedUntil: number;
  lastSentAt: number;
}

/**
 * When the next request of each kind may go, from what the service said last: never before a
 * refusal's Retry-After, never while the window has no slot left (until its reset), and for polls,
 * once half the window's budget is spent, no faster than the rest of it spread over the time the
 * window needs to free a slot. So a run sends no request it knows would be refused, and a long
 * run keeps a share of the polling budget to the end.
 */
export class Pacing {
  private readonly budgets = new Map<LimitKind, Budget>();

  constructor(private readonly now: () => number = Date.now) {}

  private budget(kind: LimitKind): Budget {
    let budget = this.budgets.get(kind);
    if (!budget) {
      budget = { reading: null, readAt: 0, refusedUntil: 0, lastSentAt: Number.NEGATIVE_INFINITY };
      this.budgets.set(kind, budget);
    }
    return budget;
  }

  sent(kind: LimitKind): void {
    this.budget(kind).lastSentAt = this.now();
  }

  observe(kind: LimitKind, reading: RateLimitReading): void {
    const budget = this.budget(kind);
    budget.reading = reading;
    budget.readAt = this.now();
  }

  refused(kind: LimitKind, retryAfterSeconds: number): void {
    const budget = this.budget(kind);
    budget.refusedUntil = Math.max(budget.refusedUntil, this.now() + Math.max(1, retryAfterSeconds) * 1000);
  }

  /** The earliest instant (ms) the next request of `kind` may be sent. */
  nextAt(kind: LimitKind): number {
    const budget = this.budget(kind);
    let at = Math.max(this.now(), budget.refusedUntil);
    const reading = budget.reading;
    if (!reading) return at;
    const resetAt = budget.readAt + reading.resetSeconds * 1000;
    if (reading.remaining <= 0) return Math.max(at, resetAt);
    if (kind === 'poll' && reading.remaining < reading.limit / 2) {
      const spreadMs = (reading.resetSeconds * 1000) / reading.remaining;
      at = Math.max(at, budget.lastSentAt + spreadMs);
    }
    return at;
  }
}

/** The gap before the next poll of a job that has not changed since `unchangedPolls` polls. */
export function pollGapMs(unchangedPolls: number): number {
  return Math.min(POLL_INTERVAL.maxMs, POLL_INTERVAL.firstMs * POLL_INTERVAL.growth ** unchangedPolls);
}

/** `RateLimit-*` headers as a reading, or null when the response carries none (or not all three). */
export function readRateLimit(headers: { get(name: string): string | null }): RateLimitReading | null {
  const values = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'].map((name) => headers.get(name));
  const numbers = values.map((value) => (value === null ? Number.NaN : Number(value)));
  if (numbers.some((value) => !Number.isFinite(value))) return null;
  const [limit, remaining, resetSeconds] = numbers as [number, number, number];
  return { limit, remaining, resetSeconds };
}

/** Which limit a request to the service counts against, from its method and path (contract section 10). */
export function limitKindOf(method: string, path: string): LimitKind | null {
  const route = path.replace(/^.*\/api\/v1/, '');
  if (method === 'POST' && route.startsWith('/uploads')) return 'upload';
  if (method === 'POST') return 'create';
  if (method === 'GET' && (route.startsWith('/jobs') || route.startsWith('/product-image-enhancements'))) return 'poll';
  return null;
}
