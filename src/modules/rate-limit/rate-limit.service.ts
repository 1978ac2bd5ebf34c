import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { REDIS } from '../../core/redis/redis.module';
import { SLIDING_WINDOW_SCRIPT } from './sliding-window.lua';
import { RateLimitKind, type RateLimitDecision, type RateLimitScope, type RateLimitSubject } from './rate-limit.types';

const SCOPES: readonly RateLimitScope[] = ['key', 'account', 'ip'];

type SlidingWindowRedis = Redis & {
  slidingWindow(...args: Array<string | number>): Promise<[number, number, number, number]>;
};

/**
 * Per-key, per-account and per-IP limits over a sliding window, kept in Redis so every API
 * instance shares them. Written here rather than taken from rate-limiter-flexible: that library
 * offers fixed windows only, and the three scopes must be consumed all-or-nothing, which one
 * Lua script does in a single round trip.
 */
@Injectable()
export class RateLimitService {
  private readonly redis: SlidingWindowRedis;

  constructor(
    @Inject(REDIS) redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    if (!('slidingWindow' in redis)) redis.defineCommand('slidingWindow', { lua: SLIDING_WINDOW_SCRIPT });
    this.redis = redis as SlidingWindowRedis;
  }

  get windowSeconds(): number {
    return this.config.RATE_LIMIT_WINDOW_SECONDS;
  }

  limitsOf(kind: RateLimitKind): Record<RateLimitScope, number> {
    return kind === RateLimitKind.Create
      ? {
          key: this.config.LIMIT_CREATES_PER_HOUR_KEY,
          account: this.config.LIMIT_CREATES_PER_HOUR_ACCOUNT,
          ip: this.config.LIMIT_CREATES_PER_HOUR_IP,
        }
      : {
          key: this.config.LIMIT_POLLS_PER_HOUR_KEY,
          account: this.config.LIMIT_POLLS_PER_HOUR_ACCOUNT,
          ip: this.config.LIMIT_POLLS_PER_HOUR_IP,
        };
  }

  async consume(kind: RateLimitKind, subject: RateLimitSubject): Promise<RateLimitDecision> {
    const limits = this.limitsOf(kind);
    const token = randomUUID();
    const [allowed, index, remaining, resetMs] = await this.redis.slidingWindow(
      SCOPES.length,
      ...this.keysOf(kind, subject),
      this.windowSeconds * 1000,
      token,
      ...SCOPES.map((scope) => limits[scope]),
    );
    const scope = SCOPES[index - 1];
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    return {
      allowed: allowed === 1,
      limit: limits[scope],
      remaining,
      resetSeconds,
      retryAfterSeconds: allowed === 1 ? null : resetSeconds,
      scope,
      token: allowed === 1 ? token : null,
    };
  }

  /** Gives a consumed slot back, when a later admission step refused the request. */
  async refund(kind: RateLimitKind, subject: RateLimitSubject, token: string): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const key of this.keysOf(kind, subject)) pipeline.zrem(key, token);
    await pipeline.exec();
  }

  private keysOf(kind: RateLimitKind, subject: RateLimitSubject): string[] {
    const ids: Record<RateLimitScope, string> = { key: subject.keyId, account: subject.accountId, ip: subject.ip };
    return SCOPES.map((scope) => `${this.config.REDIS_KEY_PREFIX}:rl:${kind}:${scope}:${ids[scope]}`);
  }
}
