import { nextPollDelayMs, rateLimitOf, retryAfterSecondsOf } from './rate-limit';

describe(rateLimitOf.name, () => {
  it('reads the RateLimit-* headers, and nothing when one is missing or not a number', () => {
    const headers = new Headers({ 'RateLimit-Limit': '120', 'RateLimit-Remaining': '7', 'RateLimit-Reset': '900' });
    expect(rateLimitOf(headers)).toEqual({ limit: 120, remaining: 7, resetSeconds: 900 });
    expect(rateLimitOf(new Headers({ 'RateLimit-Limit': '120', 'RateLimit-Remaining': '7' }))).toBeUndefined();
    expect(
      rateLimitOf(new Headers({ 'RateLimit-Limit': '120', 'RateLimit-Remaining': 'x', 'RateLimit-Reset': '1' })),
    ).toBeUndefined();
  });
});

describe(retryAfterSecondsOf.name, () => {
  it('reads seconds, or an HTTP date as seconds from now', () => {
    expect(retryAfterSecondsOf(new Headers({ 'Retry-After': '17' }))).toBe(17);
    const now = Date.parse('2026-07-01T12:00:00Z');
    expect(retryAfterSecondsOf(new Headers({ 'Retry-After': 'Wed, 01 Jul 2026 12:00:30 GMT' }), now)).toBe(30);
    expect(retryAfterSecondsOf(new Headers({ 'Retry-After': 'soon' }))).toBeUndefined();
    expect(retryAfterSecondsOf(new Headers())).toBeUndefined();
  });
});

describe(nextPollDelayMs.name, () => {
  it('spreads the polls left over the time until a slot frees, and never goes below the interval', () => {
    // The default limit: 119 polls left for the next hour is one every ~30 s.
    expect(nextPollDelayMs(2000, { limit: 120, remaining: 119, resetSeconds: 3600 })).toBe(30_253);
    expect(nextPollDelayMs(2000, { limit: 1000, remaining: 999, resetSeconds: 60 })).toBe(2000);
    // None left: wait for the slot to free.
    expect(nextPollDelayMs(2000, { limit: 120, remaining: 0, resetSeconds: 45 })).toBe(45_000);
    expect(nextPollDelayMs(2000, undefined)).toBe(2000);
  });
});
