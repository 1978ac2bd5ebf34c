import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, switchMap, type Observable } from 'rxjs';
import { rateLimitExceeded, setRateLimitHeaders } from './rate-limit.headers';
import { RateLimitService } from './rate-limit.service';
import { RateLimitKind, type RateLimitSubject } from './rate-limit.types';

export function rateLimitSubjectOf(context: ExecutionContext, interceptor: string): { subject: RateLimitSubject; res: Response } {
  const req = context.switchToHttp().getRequest<Request>();
  const auth = req.auth;
  if (!auth) throw new Error(`${interceptor} needs an API-key route`);
  return {
    subject: { keyId: auth.keyId, accountId: auth.accountId, ip: req.ip ?? 'unknown' },
    res: context.switchToHttp().getResponse<Response>(),
  };
}

/**
 * Counts reads of jobs (`GET /jobs`, `GET /jobs/{id}`, `GET /product-image-enhancements/{id}`)
 * against the polling limits (spec section 8). A poll answered with an error still counts.
 */
@Injectable()
export class PollRateLimitInterceptor implements NestInterceptor {
  constructor(private readonly rateLimits: RateLimitService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { subject, res } = rateLimitSubjectOf(context, PollRateLimitInterceptor.name);
    return from(this.rateLimits.consume(RateLimitKind.Poll, subject)).pipe(
      switchMap((decision) => {
        setRateLimitHeaders(res, decision);
        if (!decision.allowed) throw rateLimitExceeded(RateLimitKind.Poll, decision, this.rateLimits.windowSeconds);
        return next.handle();
      }),
    );
  }
}
