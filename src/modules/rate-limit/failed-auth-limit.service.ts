import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { REDIS } from '../../core/redis/redis.module';
import { runSlidingWindow } from './sliding-window';
import { SlidingWindowMode } from './sliding-window.lua';

/**
 * Failed API-key authentications per client IP over the rate-limit window, in Redis like the
 * other limits, so guessing keys costs neither unbounded database lookups nor cache churn.
 */
@Injectable()
export class FailedAuthLimitService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Throws 429 `rate_limit_exceeded` when the IP has used up its failures, before any lookup.
   * Valid keys never count: a burst of many customers' keys behind one gateway address is not
   * refused. Guesses in flight at the same moment can each be looked up once before their
   * failures are counted; that bounds the overshoot by the caller's own concurrency.
   */
  async ensureAllowed(ip: string): Promise<void> {
    // Giving back a token that was never taken removes nothing and reports the room left.
    const [, , remaining, resetMs] = await this.run(SlidingWindowMode.Refund, ip, randomUUID());
    if (remaining <= 0) throw this.exceeded(resetMs);
  }

  /** Counts one failed authentication (an unknown, revoked or malformed key). */
  async recordFailure(ip: string): Promise<void> {
    await this.run(SlidingWindowMode.Consume, ip, randomUUID());
  }

  private run(mode: SlidingWindowMode, ip: string, token: string) {
    // One key per call: the IP is the hash tag only so counters spread over a cluster's slots.
    const key = `${this.config.REDIS_KEY_PREFIX}:rl:auth-fail:{${ip}}`;
    return runSlidingWindow(this.redis, mode, [key], this.config.RATE_LIMIT_WINDOW_SECONDS * 1000, token, [
      this.config.LIMIT_FAILED_AUTH_PER_HOUR_IP,
    ]);
  }

  private exceeded(resetMs: number): DomainError {
    const wait = Math.max(1, Math.ceil(resetMs / 1000));
    const limit = this.config.LIMIT_FAILED_AUTH_PER_HOUR_IP;
    const windowSeconds = this.config.RATE_LIMIT_WINDOW_SECONDS;
    return new DomainError(
      ErrorCode.RateLimitExceeded,
      `Too many failed authentications: ${limit} per ${windowSeconds} seconds per IP address. ` +
        `Retry in ${wait} seconds.`,
      { scope: 'ip', limit, window_seconds: windowSeconds },
      wait,
    );
  }
}
