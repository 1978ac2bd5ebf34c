import { KeyEnvironment } from './api-key.entity';
import { KeyLookupCache, type ResolvedKey } from './key-lookup-cache';

function resolved(keyId: string, accountId: string): ResolvedKey {
  return { keyId, accountId, environment: KeyEnvironment.Live, apiAccess: true, restrictedUntil: null };
}

describe(KeyLookupCache.name, () => {
  let now: number;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('returns undefined for a hash it has never seen', () => {
    expect(new KeyLookupCache(30_000, 10, clock).get('h')).toBeUndefined();
  });

  it('returns a cached key on a hit', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    const key = resolved('k1', 'a1');
    cache.set('h1', key, cache.currentGeneration());
    expect(cache.get('h1')).toEqual(key);
  });

  it('caches an unknown hash as null, distinct from a miss', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    cache.set('unknown', null, cache.currentGeneration());
    expect(cache.get('unknown')).toBeNull();
  });

  it('expires an entry once its TTL has passed', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    cache.set('h1', resolved('k1', 'a1'), cache.currentGeneration());
    now += 29_999;
    expect(cache.get('h1')).toBeDefined();
    now += 1;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('caches nothing when the TTL is 0', () => {
    const cache = new KeyLookupCache(0, 10, clock);
    cache.set('h1', resolved('k1', 'a1'), cache.currentGeneration());
    expect(cache.get('h1')).toBeUndefined();
  });

  it('forgets every entry and stores none while suspended, then stores again once resumed', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    cache.set('known', resolved('k1', 'a1'), cache.currentGeneration());
    cache.set('unknown', null, cache.currentGeneration());

    cache.suspend();
    expect(cache.get('known')).toBeUndefined();
    expect(cache.get('unknown')).toBeUndefined();
    cache.set('known', resolved('k1', 'a1'), cache.currentGeneration());
    const readWhileSuspended = cache.currentGeneration();

    cache.resume();
    expect(cache.get('known')).toBeUndefined();
    // A lookup that read the database before the resumption may have missed an invalidation.
    cache.set('known', resolved('k1', 'a1'), readWhileSuspended);
    expect(cache.get('known')).toBeUndefined();
    cache.set('known', resolved('k1', 'a1'), cache.currentGeneration());
    expect(cache.get('known')).toEqual(resolved('k1', 'a1'));
  });

  it('invalidates by key id, leaving other keys of the account', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    const generation = cache.currentGeneration();
    cache.set('h1', resolved('k1', 'a1'), generation);
    cache.set('h2', resolved('k2', 'a1'), generation);
    cache.invalidate({ keyId: 'k1' });
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toEqual(resolved('k2', 'a1'));
  });

  it('invalidates every key of an account, leaving other accounts', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    const generation = cache.currentGeneration();
    cache.set('h1', resolved('k1', 'a1'), generation);
    cache.set('h2', resolved('k2', 'a1'), generation);
    cache.set('h3', resolved('k3', 'a2'), generation);
    cache.invalidate({ accountId: 'a1' });
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.get('h3')).toEqual(resolved('k3', 'a2'));
  });

  it('does not cache a lookup that raced an invalidation', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    const readAt = cache.currentGeneration();
    // The database read happens here; meanwhile the key is revoked.
    cache.invalidate({ keyId: 'k1' });
    cache.set('h1', resolved('k1', 'a1'), readAt);
    expect(cache.get('h1')).toBeUndefined();
    // A fresh lookup after the invalidation is cached again.
    cache.set('h1', resolved('k1', 'a1'), cache.currentGeneration());
    expect(cache.get('h1')).toEqual(resolved('k1', 'a1'));
  });

  it('never holds more than its capacity, dropping the oldest entry first', () => {
    const cache = new KeyLookupCache(30_000, 3, clock);
    for (let i = 1; i <= 5; i++) cache.set(`h${i}`, resolved(`k${i}`, 'a1'), cache.currentGeneration());
    const held = [1, 2, 3, 4, 5].filter((i) => cache.get(`h${i}`) !== undefined);
    expect(held).toEqual([3, 4, 5]);
  });
});

describe(`${KeyLookupCache.name} eviction`, () => {
  const clock = () => 1_000_000;

  it('evicts the least recently used key, not the first inserted', () => {
    const cache = new KeyLookupCache(30_000, 3, clock);
    for (let i = 1; i <= 3; i++) cache.set(`h${i}`, resolved(`k${i}`, 'a1'), cache.currentGeneration());
    expect(cache.get('h1')).toBeDefined();
    cache.set('h4', resolved('k4', 'a1'), cache.currentGeneration());
    const held = [1, 2, 3, 4].filter((i) => cache.get(`h${i}`) !== undefined);
    expect(held).toEqual([1, 3, 4]);
  });

  it('never lets unknown hashes evict known keys', () => {
    const cache = new KeyLookupCache(30_000, 3, clock);
    for (let i = 1; i <= 3; i++) cache.set(`h${i}`, resolved(`k${i}`, 'a1'), cache.currentGeneration());
    for (let i = 0; i < 1_000; i++) cache.set(`random-${i}`, null, cache.currentGeneration());
    expect([1, 2, 3].map((i) => cache.get(`h${i}`))).toEqual([1, 2, 3].map((i) => resolved(`k${i}`, 'a1')));
  });

  it('keeps misses in a bounded LRU of their own', () => {
    const cache = new KeyLookupCache(30_000, 100, clock, 2);
    for (let i = 1; i <= 3; i++) cache.set(`u${i}`, null, cache.currentGeneration());
    expect(['u1', 'u2', 'u3'].map((hash) => cache.get(hash))).toEqual([undefined, null, null]);
  });

  it('forgets a cached miss once the key is found, and a found key once it is unknown', () => {
    const cache = new KeyLookupCache(30_000, 10, clock);
    cache.set('h1', null, cache.currentGeneration());
    cache.set('h1', resolved('k1', 'a1'), cache.currentGeneration());
    expect(cache.get('h1')).toEqual(resolved('k1', 'a1'));
    cache.set('h1', null, cache.currentGeneration());
    expect(cache.get('h1')).toBeNull();
  });
});
