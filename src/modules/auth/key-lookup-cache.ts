import type { KeyEnvironment } from './api-key.entity';

/** What a key resolves to; the account flags are re-checked on every request against the clock. */
export interface ResolvedKey {
  keyId: string;
  accountId: string;
  environment: KeyEnvironment;
  apiAccess: boolean;
  restrictedUntil: Date | null;
}

interface CacheEntry {
  key: ResolvedKey | null;
  expiresAt: number;
}

/**
 * A small in-process cache of key lookups by secret hash, so authentication does not cost a
 * database round trip per request. Entries live `ttlMs`; invalidation by key or account
 * removes them at once. Unknown hashes are cached too, which keeps guessing off the database.
 */
export class KeyLookupCache {
  private readonly entries = new Map<string, CacheEntry>();
  /** Bumped by every invalidation, so a lookup that raced one is not cached. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(hash: string): ResolvedKey | null | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.key;
  }

  /** Call before reading the database; pass the value to `set`. */
  currentGeneration(): number {
    return this.generation;
  }

  set(hash: string, key: ResolvedKey | null, readAtGeneration: number): void {
    if (this.ttlMs <= 0 || readAtGeneration !== this.generation) return;
    if (!this.entries.has(hash) && this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { key, expiresAt: this.now() + this.ttlMs });
  }

  invalidate(match: { keyId?: string; accountId?: string }): void {
    this.generation++;
    for (const [hash, entry] of this.entries) {
      if (!entry.key) continue;
      if (entry.key.keyId === match.keyId || entry.key.accountId === match.accountId) this.entries.delete(hash);
    }
  }
}
