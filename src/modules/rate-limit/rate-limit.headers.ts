import type { Response } from 'express';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { RateLimitKind, type RateLimitDecision, type RateLimitScope } from './rate-limit.types';

const SCOPE_NAMES: Record<RateLimitScope, string> = { key: 'API key', account: 'account', ip: 'IP address' };

/**
 * Responses not yet sent whose headers came from a decision that consumed a slot, by its token,
 * so a refund (which knows only the token) can correct them. An entry leaves when its response
 * closes, so the map holds at most the requests in flight.
 */
const refundableResponses = new Map<string, Response>();

/**
 * `RateLimit-*` headers (contract section 10) for the scope with the least room, for a slot never given back (a poll).
 */
export function writeRateLimitHeaders(res: Response, decision: RateLimitDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, decision.remaining)));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}

/**
 * `RateLimit-*` headers for a slot that a later refusal may give back (a create or a cancel):
 * the response is remembered until it closes, so the refund can rewrite them.
 */
export function setRateLimitHeaders(res: Response, decision: RateLimitDecision): void {
  writeRateLimitHeaders(res, decision);
  const token = decision.token;
  if (token === null || res.headersSent || refundableResponses.has(token)) return;
  refundableResponses.set(token, res);
  res.once('close', () => refundableResponses.delete(token));
}

/** Called by the rate-limit service once a slot is given back: the same response reports it. */
export function rewriteRateLimitHeadersAfterRefund(token: string, after: RateLimitDecision): void {
  const res = refundableResponses.get(token);
  if (!res) return;
  refundableResponses.delete(token);
  if (!res.headersSent) writeRateLimitHeaders(res, after);
}

const WHAT_IS_LIMITED: Record<RateLimitKind, string> = {
  [RateLimitKind.Create]: 'create, cancel and redelivery requests',
  [RateLimitKind.Poll]: 'job status and account reads',
  [RateLimitKind.Upload]: 'uploads',
};

export function rateLimitExceeded(
  kind: RateLimitKind,
  decision: RateLimitDecision,
  windowSeconds: number,
): DomainError {
  const wait = decision.retryAfterSeconds ?? decision.resetSeconds;
  return new DomainError(
    ErrorCode.RateLimitExceeded,
    `Rate limit reached: ${decision.limit} ${WHAT_IS_LIMITED[kind]} per ${windowSeconds} seconds ` +
      `per ${SCOPE_NAMES[decision.scope]}. Retry in ${wait} seconds.`,
    { scope: decision.scope, limit: decision.limit, window_seconds: windowSeconds },
    wait,
  );
}
