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
 * other limits, so every API instance shares the count. Only failures count: a key that proves
 * valid always passes, so clients behind one gateway address are never refused for one another's
 * mistakes; what the limit changes is the answer to a failing address, 429 with Retry-After
 * instead of 401, which tells a client retrying a wrong key to stop.
 */
@Injectable()
export class FailedAuthLimitService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Counts one failed authentication from `ip`, or throws 429 `rate_limit_exceeded` when the IP
   * has used up its failures in the window (that one is not counted, so the oldest failure
   * leaving the window frees the IP). One atomic step, so concurrent failures are counted exactly.
   */
  async recordFailure(ip: string): Promise<void> {
    // One key per call: the IP is the hash tag only so counters spread over a cluster's slots.
    const key = `${this.config.REDIS_KEY_PREFIX}:rl:auth-fail:{${ip}}`;
    const limit = this.config.LIMIT_FAILED_AUTH_PER_HOUR_IP;
    const [allowed, , , resetMs] = await runSlidingWindow(
      this.redis,
      SlidingWindowMode.Consume,
      [key],
      this.config.RATE_LIMIT_WINDOW_SECONDS * 1000,
      randomUUID(),
      [limit],
    );
    if (allowed !== 1) throw this.exceeded(limit, resetMs);
  }

  private exceeded(limit: number, resetMs: number): DomainError {
    const wait = Math.max(1, Math.ceil(resetMs / 1000));
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
