import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import { from, switchMap, type Observable } from 'rxjs';
import { rateLimitExceeded, setRateLimitHeaders } from './rate-limit.headers';
import { RateLimitService } from './rate-limit.service';
import { RateLimitKind } from './rate-limit.types';

/** Counts `GET /jobs` and `GET /jobs/{id}` against the polling limits (spec section 8). */
@Injectable()
export class PollRateLimitInterceptor implements NestInterceptor {
  constructor(private readonly rateLimits: RateLimitService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Request>();
    const res = context.switchToHttp().getResponse<Response>();
    const auth = req.auth;
    if (!auth) throw new Error('PollRateLimitInterceptor needs an API-key route');
    return from(
      this.rateLimits.consume(RateLimitKind.Poll, { keyId: auth.keyId, accountId: auth.accountId, ip: req.ip ?? 'unknown' }),
    ).pipe(
      switchMap((decision) => {
        setRateLimitHeaders(res, decision);
        if (!decision.allowed) throw rateLimitExceeded(RateLimitKind.Poll, decision, this.rateLimits.windowSeconds);
        return next.handle();
      }),
    );
  }
}
