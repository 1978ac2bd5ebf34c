import { describe, expect, it } from '@jest/globals';
import { limitKindOf, Pacing, pollGapMs, readRateLimit } from './pacing';

describe(Pacing.name, () => {
  let now = 1_000_000;
  const pacing = () => new Pacing(() => now);

  it('lets a request go at once until the service says something', () => {
    expect(pacing().nextAt('create')).toBe(now);
  });

  it('waits for the reset when the window has no slot left', () => {
    const paced = pacing();
    paced.observe('create', { limit: 2, remaining: 0, resetSeconds: 30 });
    expect(paced.nextAt('create')).toBe(now + 30_000);
    now += 30_000;
    expect(paced.nextAt('create')).toBe(now);
  });

  it("never sends before a refusal's Retry-After", () => {
    const paced = pacing();
    paced.observe('create', { limit: 5, remaining: 3, resetSeconds: 3600 });
    paced.refused('create', 12);
    expect(paced.nextAt('create')).toBe(now + 12_000);
  });

  it('spreads the rest of the polling budget once half of it is spent', () => {
    const paced = pacing();
    paced.sent('poll');
    paced.observe('poll', { limit: 120, remaining: 100, resetSeconds: 3600 });
    expect(paced.nextAt('poll')).toBe(now);
    paced.observe('poll', { limit: 120, remaining: 40, resetSeconds: 3600 });
    expect(paced.nextAt('poll')).toBe(now + 90_000);
  });

  it('keeps the limits apart', () => {
    const paced = pacing();
    paced.observe('create', { limit: 2, remaining: 0, resetSeconds: 30 });
    expect(paced.nextAt('poll')).toBe(now);
  });

  it('polls an unchanged job less and less often, up to a ceiling', () => {
    expect(pollGapMs(0)).toBe(1000);
    expect(pollGapMs(2)).toBe(2250);
    expect(pollGapMs(50)).toBe(20_000);
  });

  it('reads the RateLimit headers, and nothing from a response without all three', () => {
    const headers = (values: Record<string, string>) => new Headers(values);
    expect(
      readRateLimit(headers({ 'RateLimit-Limit': '5', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '42' })),
    ).toEqual({ limit: 5, remaining: 0, resetSeconds: 42 });
    expect(readRateLimit(headers({ 'RateLimit-Limit': '5' }))).toBeNull();
  });

  it('tells which limit a request counts against', () => {
    expect(limitKindOf('POST', '/api/v1/image/edit')).toBe('create');
    expect(limitKindOf('POST', '/api/v1/jobs/1/cancel')).toBe('create');
    expect(limitKindOf('POST', '/api/v1/uploads')).toBe('upload');
    expect(limitKindOf('GET', '/api/v1/jobs/1')).toBe('poll');
    expect(limitKindOf('GET', '/api/v1/tools')).toBeNull();
    expect(limitKindOf('GET', '/api/v1/files/abc')).toBeNull();
  });
});
