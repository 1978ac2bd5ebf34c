export enum RateLimitKind {
  Create = 'create',
  Poll = 'poll',
  Upload = 'upload',
}

export type RateLimitScope = 'key' | 'account' | 'ip';

export interface RateLimitSubject {
  keyId: string;
  accountId: string;
  ip: string;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The limit of the scope reported: the one that refused, or the one with least room left. */
  limit: number;
  remaining: number;
  /** Seconds until that scope's oldest counted request leaves the window. */
  resetSeconds: number;
  /** Seconds to wait before retrying; null when allowed. */
  retryAfterSeconds: number | null;
  scope: RateLimitScope;
  /** Identifies this request's entries, so a later refusal can give the slot back. */
  token: string | null;
}
