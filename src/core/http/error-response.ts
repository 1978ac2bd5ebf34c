import type { Response } from 'express';
import { DomainError } from '../errors/domain-error';
import { httpStatusOf } from '../errors/error-code';

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: Record<string, unknown> };
  request_id: string;
}

/** Writes the error envelope of spec 2.5; used by the global filter and by raw middleware. */
export function sendError(res: Response, requestId: string, error: DomainError): void {
  const body: ErrorEnvelope = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
    },
    request_id: requestId,
  };
  if (error.retryAfterSeconds !== undefined) {
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  }
  res.status(httpStatusOf(error.code)).json(body);
}
