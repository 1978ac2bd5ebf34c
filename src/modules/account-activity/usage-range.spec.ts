import { DomainError } from '../../core/errors/domain-error';
import { MAX_USAGE_DAYS, usageRange } from './usage-range';

const TODAY = new Date('2026-11-27T15:30:00.000Z');

const pathsOf = (query: { from?: string; to?: string }): string[] => {
  try {
    usageRange(query, TODAY);
  } catch (error) {
    if (error instanceof DomainError) return (error.details?.errors as Array<{ path: string }>).map((e) => e.path);
    throw error;
  }
  return [];
};

describe('usageRange', () => {
  it('defaults to the 30 days that end today (UTC)', () => {
    const range = usageRange({}, TODAY);
    expect(range.from).toBe('2026-10-29');
    expect(range.to).toBe('2026-11-27');
    expect(range.days).toHaveLength(30);
    expect(range.days[0]).toBe('2026-10-29');
    expect(range.days[29]).toBe('2026-11-27');
  });

  it('counts the 30 days back from a given `to`, across a month end', () => {
    expect(usageRange({ to: '2026-03-01' }, TODAY)).toMatchObject({ from: '2026-01-31', to: '2026-03-01' });
  });

  it('takes one day, and a whole leap year at most', () => {
    expect(usageRange({ from: '2026-11-27', to: '2026-11-27' }, TODAY).days).toEqual(['2026-11-27']);
    expect(usageRange({ from: '2024-01-01', to: '2024-12-31' }, TODAY).days).toHaveLength(MAX_USAGE_DAYS);
    expect(pathsOf({ from: '2024-01-01', to: '2025-01-01' })).toEqual(['query.to']);
  });

  it('refuses dates that do not exist, and a range that ends before it starts', () => {
    expect(pathsOf({ from: '2026-02-29' })).toEqual(['query.from']);
    expect(pathsOf({ from: '2026-04-31', to: '2026-13-01' })).toEqual(['query.from', 'query.to']);
    expect(pathsOf({ from: '2026-11-28', to: '2026-11-27' })).toEqual(['query.from']);
    expect(pathsOf({ from: '2028-02-29', to: '2028-02-29' })).toEqual([]);
  });
});
