import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { rateLimitExceeded, writeRateLimitHeaders } from './rate-limit.headers';
import { RateLimitService } from './rate-limit.service';
import { rateLimitSubjectOf } from './rate-limit.subject';
import { RateLimitKind } from './rate-limit.types';

/**
 * Counts reads of jobs (`GET /jobs`, `GET /jobs/{id}`, `GET /product-image-enhancements/{id}`)
 * and of the account (`GET /account/ledger`, `GET /account/usage`, `GET /webhook-deliveries`)
 * against the polling limits (spec section 8). A poll answered with an error still counts. A
 * guard, running after the access guard and before any pipe: nothing is needed after the
 * handler, so the route needs no interceptor (whose RxJS pipeline costs every poll).
 */
@Injectable()
export class PollRateLimitGuard implements CanActivate {
  constructor(private readonly rateLimits: RateLimitService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const { subject, res } = rateLimitSubjectOf(context, PollRateLimitGuard.name);
    const decision = await this.rateLimits.consume(RateLimitKind.Poll, subject);
    writeRateLimitHeaders(res, decision);
    if (!decision.allowed) throw rateLimitExceeded(RateLimitKind.Poll, decision, this.rateLimits.windowSeconds);
    return true;
  }
}
