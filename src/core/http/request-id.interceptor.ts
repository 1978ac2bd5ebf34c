import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import { map, type Observable } from 'rxjs';
import { requestIdOf } from './request-id';

/** Adds `request_id` to every JSON object a controller returns, so no handler has to. */
@Injectable()
export class RequestIdInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const requestId = requestIdOf(context.switchToHttp().getRequest<Request>());
    return next
      .handle()
      .pipe(
        map((body: unknown) =>
          body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, request_id: requestId } : body,
        ),
      );
  }
}
