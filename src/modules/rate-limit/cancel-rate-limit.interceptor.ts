import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { catchError, from, switchMap, throwError, type Observable } from 'rxjs';
import { rateLimitExceeded, setRateLimitHeaders } from './rate-limit.headers';
import { RateLimitService } from './rate-limit.service';
import { rateLimitSubjectOf } from './rate-limit.subject';
import { RateLimitKind, type RateLimitSubject } from './rate-limit.types';

/**
 * Counts `POST /jobs/{id}/cancel` (and `POST /webhook-events/{id}/redeliver`) against the create
 * limits: it is a write, like a create, and keeps its own budget apart from status polling. As
 * for a create, a cancel answered with an error (an unknown job, say) gives its slot back, and
 * its headers say so.
 */
@Injectable()
export class CancelRateLimitInterceptor implements NestInterceptor {
  constructor(private readonly rateLimits: RateLimitService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const { subject, res } = rateLimitSubjectOf(context, CancelRateLimitInterceptor.name);
    return from(this.rateLimits.consume(RateLimitKind.Create, subject)).pipe(
      switchMap((decision) => {
        setRateLimitHeaders(res, decision);
        if (!decision.allowed) throw rateLimitExceeded(RateLimitKind.Create, decision, this.rateLimits.windowSeconds);
        const token = decision.token;
        return next
          .handle()
          .pipe(
            catchError((error: unknown) =>
              from(token ? this.refund(subject, token) : Promise.resolve()).pipe(
                switchMap(() => throwError(() => error)),
              ),
            ),
          );
      }),
    );
  }

  /** A failed refund only costs the caller a slot; the cancel's own error is what it must see. */
  private async refund(subject: RateLimitSubject, token: string): Promise<void> {
    await this.rateLimits.refund(RateLimitKind.Create, subject, token).catch(() => undefined);
  }
}
