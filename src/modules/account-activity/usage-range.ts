import { DomainError } from '../../core/errors/domain-error';

/** The longest range one usage request covers: a year, leap day included. */
export const MAX_USAGE_DAYS = 366;
/** The range without a `from`: 30 days, `to` included. */
const DEFAULT_USAGE_DAYS = 30;
const DAY_MS = 86_400_000;

/** Inclusive UTC days, written YYYY-MM-DD. */
export interface UsageRange {
  from: string;
  to: string;
  /** Every day of the range, oldest first. */
  days: string[];
}

const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The day's midnight (UTC) in epoch milliseconds, or null for a date that does not exist (2026-02-30). */
function parseDay(value: string): number | null {
  const time = Date.parse(`${value}T00:00:00.000Z`);
  return Number.isNaN(time) || dayOf(time) !== value ? null : time;
}

/**
 * The range a usage request asks for, checked: real dates, `from` not after `to`, at most
 * `MAX_USAGE_DAYS` days; each refusal a 400 at the field's query path. `today` is the UTC day
 * the defaults count from.
 */
export function usageRange(query: { from?: string; to?: string }, today = new Date()): UsageRange {
  const to = query.to === undefined ? Date.parse(`${dayOf(today.getTime())}T00:00:00.000Z`) : parseDay(query.to);
  const from = query.from === undefined ? null : parseDay(query.from);
  const errors = [
    ...(query.from !== undefined && from === null ? [{ path: 'query.from', message: 'is not a calendar date' }] : []),
    ...(to === null ? [{ path: 'query.to', message: 'is not a calendar date' }] : []),
  ];
  if (errors.length > 0 || to === null) throw DomainError.invalid(errors);
  const start = from ?? to - (DEFAULT_USAGE_DAYS - 1) * DAY_MS;
  if (start > to) throw DomainError.invalid([{ path: 'query.from', message: 'must not be after to' }]);
  const count = (to - start) / DAY_MS + 1;
  if (count > MAX_USAGE_DAYS) {
    throw DomainError.invalid([
      { path: 'query.to', message: `must be at most ${MAX_USAGE_DAYS} days from from, both included` },
    ]);
  }
  return {
    from: dayOf(start),
    to: dayOf(to),
    days: Array.from({ length: count }, (_, index) => dayOf(start + index * DAY_MS)),
  };
}
