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
 * What a failed authentication presented: each kind has its own counter per IP (the value names
 * its Redis key) and its own limit.
 */
export enum FailedCredential {
  /** An API key (`sk_live_…`, `sk_sandbox_…`). */
  ApiKey = 'auth-fail',
  /** An operator's token: ADMIN_TOKEN or METRICS_TOKEN. */
  OperatorToken = 'admin-auth-fail',
}

/**
 * Failed authentications per client IP over the rate-limit window, in Redis like the other
 * limits, so every API instance shares the count. Only failures count: a credential that proves
 * valid always passes, so clients behind one gateway address are never refused for one another's
 * mistakes; what the limit changes is the answer to a failing address, 429 with Retry-After
 * instead of 401, which tells a client retrying a wrong secret to stop.
 */
@Injectable()
export class FailedAuthLimitService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Counts one failed authentication of `credential` from `ip`, or throws 429
   * `rate_limit_exceeded` when the IP has used up its failures in the window (that one is not
   * counted, so the oldest failure leaving the window frees the IP). One atomic step, so
   * concurrent failures are counted exactly.
   */
  async recordFailure(credential: FailedCredential, ip: string): Promise<void> {
    // One key per call: the IP is the hash tag only so counters spread over a cluster's slots.
    const key = `${this.config.REDIS_KEY_PREFIX}:rl:${credential}:{${ip}}`;
    const limit = this.limitOf(credential);
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

  private limitOf(credential: FailedCredential): number {
    switch (credential) {
      case FailedCredential.ApiKey:
        return this.config.LIMIT_FAILED_AUTH_PER_HOUR_IP;
      case FailedCredential.OperatorToken:
        return this.config.LIMIT_FAILED_ADMIN_AUTH_PER_HOUR_IP;
    }
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
