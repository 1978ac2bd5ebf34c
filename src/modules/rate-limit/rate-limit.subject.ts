import type { ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { RateLimitSubject } from './rate-limit.types';

/**
 * Whom a limit counts on an API-key route (the key, its account and the client's address), and
 * the response its `RateLimit-*` headers go on. `limiter` names the caller in the error thrown
 * when it is put on a route without an API key.
 */
export function rateLimitSubjectOf(
  context: ExecutionContext,
  limiter: string,
): { subject: RateLimitSubject; res: Response } {
  const req = context.switchToHttp().getRequest<Request>();
  const auth = req.auth;
  if (!auth) throw new Error(`${limiter} needs an API-key route`);
  return {
    subject: { keyId: auth.keyId, accountId: auth.accountId, ip: req.ip ?? 'unknown' },
    res: context.switchToHttp().getResponse<Response>(),
  };
}
