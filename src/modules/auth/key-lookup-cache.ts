import { LRUCache } from 'lru-cache';
import type { KeyEnvironment } from './api-key.entity';

/** What a key resolves to; the account flags are re-checked on every request against the clock. */
export interface ResolvedKey {
  keyId: string;
  accountId: string;
  environment: KeyEnvironment;
  apiAccess: boolean;
  restrictedUntil: Date | null;
}

interface CacheEntry<T> {
  value: T;
  expiresAt: number;
}

/**
 * A small in-process cache of key lookups by secret hash, so authentication does not cost a
 * database round trip per request. Entries live `ttlMs`; invalidation by key or account
 * removes them at once. Known keys and unknown hashes sit in two separate LRUs: a stream of
 * random well-formed keys only churns the small one for misses and never evicts a known key.
 */
export class KeyLookupCache {
  private readonly known: LRUCache<string, CacheEntry<ResolvedKey>>;
  private readonly unknown: LRUCache<string, CacheEntry<null>>;
  /** Bumped by every invalidation, so a lookup that raced one is not cached. */
  private generation = 0;
  /** While invalidations cannot reach this process, nothing is stored (see `suspend`). */
  private suspended = false;

  constructor(
    private readonly ttlMs: number,
    maxEntries = 10_000,
    private readonly now: () => number = Date.now,
    maxUnknownEntries = Math.max(1, Math.min(1_000, maxEntries)),
  ) {
    this.known = new LRUCache({ max: maxEntries });
    this.unknown = new LRUCache({ max: maxUnknownEntries });
  }

  get(hash: string): ResolvedKey | null | undefined {
    const known = this.fresh(this.known, hash);
    if (known !== undefined) return known;
    return this.fresh(this.unknown, hash);
  }

  /** Call before reading the database; pass the value to `set`. */
  currentGeneration(): number {
    return this.generation;
  }

  set(hash: string, key: ResolvedKey | null, readAtGeneration: number): void {
    if (this.ttlMs <= 0 || this.suspended || readAtGeneration !== this.generation) return;
    const expiresAt = this.now() + this.ttlMs;
    if (key) {
      this.unknown.delete(hash);
      this.known.set(hash, { value: key, expiresAt });
    } else {
      this.known.delete(hash);
      this.unknown.set(hash, { value: null, expiresAt });
    }
  }

  invalidate(match: { keyId?: string; accountId?: string }): void {
    this.generation++;
    for (const [hash, entry] of this.known.entries()) {
      if (entry.value.keyId === match.keyId || entry.value.accountId === match.accountId) this.known.delete(hash);
    }
  }

  /**
   * Forgets every entry and stores none until `resume`: for while the invalidations published by
   * other instances cannot arrive, when no entry could be trusted to be current.
   */
  suspend(): void {
    this.suspended = true;
    this.clear();
  }

  /**
   * Forgets every entry again, since invalidations published while suspended were lost, and
   * stores lookups from now on; lookups started before this call are not stored.
   */
  resume(): void {
    this.clear();
    this.suspended = false;
  }

  private clear(): void {
    this.generation++;
    this.known.clear();
    this.unknown.clear();
  }

  private fresh<T extends ResolvedKey | null>(cache: LRUCache<string, CacheEntry<T>>, hash: string): T | undefined {
    const entry = cache.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      cache.delete(hash);
      return undefined;
    }
    return entry.value;
  }
}
