import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { REDIS } from '../../core/redis/redis.module';
import { rewriteRateLimitHeadersAfterRefund } from './rate-limit.headers';
import { runSlidingWindow, type SlidingWindowReply } from './sliding-window';
import { SlidingWindowMode } from './sliding-window.lua';
import { RateLimitKind, type RateLimitDecision, type RateLimitScope, type RateLimitSubject } from './rate-limit.types';

const SCOPES: readonly RateLimitScope[] = ['key', 'account', 'ip'];

/**
 * Per-key, per-account and per-IP limits over a sliding window, kept in Redis so every API
 * instance shares them. Written here rather than taken from rate-limiter-flexible: that library
 * offers fixed windows only, and the three scopes must be consumed all-or-nothing, which one
 * Lua script does in a single round trip.
 */
@Injectable()
export class RateLimitService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get windowSeconds(): number {
    return this.config.RATE_LIMIT_WINDOW_SECONDS;
  }

  limitsOf(kind: RateLimitKind): Record<RateLimitScope, number> {
    switch (kind) {
      case RateLimitKind.Create:
        return {
          key: this.config.LIMIT_CREATES_PER_HOUR_KEY,
          account: this.config.LIMIT_CREATES_PER_HOUR_ACCOUNT,
          ip: this.config.LIMIT_CREATES_PER_HOUR_IP,
        };
      case RateLimitKind.Poll:
        return {
          key: this.config.LIMIT_POLLS_PER_HOUR_KEY,
          account: this.config.LIMIT_POLLS_PER_HOUR_ACCOUNT,
          ip: this.config.LIMIT_POLLS_PER_HOUR_IP,
        };
      case RateLimitKind.Upload:
        return {
          key: this.config.LIMIT_UPLOADS_PER_HOUR_KEY,
          account: this.config.LIMIT_UPLOADS_PER_HOUR_ACCOUNT,
          ip: this.config.LIMIT_UPLOADS_PER_HOUR_IP,
        };
    }
  }

  async consume(kind: RateLimitKind, subject: RateLimitSubject): Promise<RateLimitDecision> {
    const token = randomUUID();
    const reply = await this.run(SlidingWindowMode.Consume, kind, subject, token);
    return this.decisionOf(kind, reply, reply[0] === 1 ? token : null);
  }

  /**
   * Gives a consumed slot back, when a later admission step refused the request, and returns the
   * room left afterwards. A response whose `RateLimit-*` headers came from this token's decision
   * (and is not sent yet) gets them rewritten, so the refused answer counts the slot as returned.
   */
  async refund(kind: RateLimitKind, subject: RateLimitSubject, token: string): Promise<RateLimitDecision> {
    const decision = this.decisionOf(kind, await this.run(SlidingWindowMode.Refund, kind, subject, token), null);
    rewriteRateLimitHeadersAfterRefund(token, decision);
    return decision;
  }

  private run(
    mode: SlidingWindowMode,
    kind: RateLimitKind,
    subject: RateLimitSubject,
    token: string,
  ): Promise<SlidingWindowReply> {
    const limits = this.limitsOf(kind);
    return runSlidingWindow(
      this.redis,
      mode,
      this.keysOf(kind, subject),
      this.windowSeconds * 1000,
      token,
      SCOPES.map((scope) => limits[scope]),
    );
  }

  private decisionOf(
    kind: RateLimitKind,
    [allowed, index, remaining, resetMs]: SlidingWindowReply,
    token: string | null,
  ): RateLimitDecision {
    const scope = SCOPES[index - 1];
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    return {
      allowed: allowed === 1,
      limit: this.limitsOf(kind)[scope],
      remaining,
      resetSeconds,
      retryAfterSeconds: allowed === 1 ? null : resetSeconds,
      scope,
      token,
    };
  }

  /**
   * The three scopes of one call are consumed all-or-nothing by one script, so on Redis Cluster
   * they must live in one slot. The IP scope is shared across accounts, so no per-caller value
   * can be the hash tag without splitting some counter: the tag is the kind of limit, which puts
   * each kind's counters on one slot (one node) and keeps every limit exact.
   */
  private keysOf(kind: RateLimitKind, subject: RateLimitSubject): string[] {
    const ids: Record<RateLimitScope, string> = { key: subject.keyId, account: subject.accountId, ip: subject.ip };
    return SCOPES.map((scope) => `${this.config.REDIS_KEY_PREFIX}:rl:{${kind}}:${scope}:${ids[scope]}`);
  }
}
