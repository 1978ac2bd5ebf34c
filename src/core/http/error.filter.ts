import { ArgumentsHost, Catch, HttpException, Logger, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { ErrorCode } from '../errors/error-code';
import { isInfrastructureOutage } from '../errors/outage';
import { sendError } from './error-response';
import { requestIdOf } from './request-id';

/** Retry hint for clients while PostgreSQL or Redis is unreachable. */
const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** Status codes Nest or a library may raise on its own, and the contract code each becomes. */
function codeForHttpStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return ErrorCode.InvalidRequest;
    case 401:
      return ErrorCode.Unauthorized;
    case 404:
      return ErrorCode.NotFound;
    case 413:
      return ErrorCode.PayloadTooLarge;
    case 415:
      return ErrorCode.UnsupportedMediaType;
    case 429:
      return ErrorCode.RateLimitExceeded;
    case 503:
      return ErrorCode.ServiceUnavailable;
    default:
      return ErrorCode.InternalError;
  }
}

const DEFAULT_MESSAGES: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.NotFound]: 'No such route.',
  [ErrorCode.InternalError]: 'An unexpected error occurred. Quote the request id when reporting it.',
};

/**
 * The single translation from anything thrown during a request to the error envelope.
 * Anything that is not a known error becomes 500 `internal_error`; its stack goes to the log
 * beside the request id and never into the response.
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(ErrorFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const requestId = requestIdOf(req);
    if (res.headersSent) return;
    sendError(res, requestId, this.toDomainError(exception, requestId));
  }

  private toDomainError(exception: unknown, requestId: string): DomainError {
    if (exception instanceof DomainError) return exception;
    if (exception instanceof HttpException) {
      const code = codeForHttpStatus(exception.getStatus());
      if (code !== ErrorCode.InternalError) {
        const message = DEFAULT_MESSAGES[code] ?? exception.message;
        return new DomainError(code, message);
      }
    }
    if (isInfrastructureOutage(exception)) {
      this.logger.error({ err: exception, request_id: requestId }, 'dependency unavailable');
      return new DomainError(
        ErrorCode.ServiceUnavailable,
        'The service is temporarily unavailable. Retry later.',
        undefined,
        OUTAGE_RETRY_AFTER_SECONDS,
      );
    }
    this.logger.error({ err: exception, request_id: requestId }, 'unhandled error');
    return new DomainError(ErrorCode.InternalError, DEFAULT_MESSAGES[ErrorCode.InternalError] as string);
  }
}
