import type { Response } from 'express';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { RateLimitKind, type RateLimitDecision, type RateLimitScope } from './rate-limit.types';

const SCOPE_NAMES: Record<RateLimitScope, string> = { key: 'API key', account: 'account', ip: 'IP address' };

/** `RateLimit-*` headers (contract section 10) for the scope with the least room. */
export function setRateLimitHeaders(res: Response, decision: RateLimitDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, decision.remaining)));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}

export function rateLimitExceeded(kind: RateLimitKind, decision: RateLimitDecision, windowSeconds: number): DomainError {
  const what = kind === RateLimitKind.Create ? 'create requests' : 'job status requests';
  const wait = decision.retryAfterSeconds ?? decision.resetSeconds;
  return new DomainError(
    ErrorCode.RateLimitExceeded,
    `Rate limit reached: ${decision.limit} ${what} per ${windowSeconds} seconds per ${SCOPE_NAMES[decision.scope]}. ` +
      `Retry in ${wait} seconds.`,
    { scope: decision.scope, limit: decision.limit, window_seconds: windowSeconds },
    wait,
  );
}
