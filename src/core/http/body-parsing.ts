import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { DomainError } from '../errors/domain-error';
import { ErrorCode } from '../errors/error-code';
import { sendError } from './error-response';
import { requestIdOf } from './request-id';

export const MAX_BODY_BYTES = 1024 * 1024;

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A body in anything but JSON is refused with 415 before it is read. */
export const requireJsonContentType: RequestHandler = (req, res, next) => {
  if (METHODS_WITH_BODY.has(req.method) && hasBody(req.headers) && !req.is('application/json')) {
    sendError(
      res,
      requestIdOf(req),
      new DomainError(ErrorCode.UnsupportedMediaType, 'Request bodies must be JSON (Content-Type: application/json).'),
    );
    return;
  }
  next();
};

export const parseJsonBody: RequestHandler = express.json({ limit: MAX_BODY_BYTES, strict: true });

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * body-parser reports through Express's error chain, which runs before Nest's router and its
 * exception filter, so its errors are translated to the envelope here.
 */
export const translateBodyParserErrors: ErrorRequestHandler = (err: BodyParserError, req, res, next) => {
  const requestId = requestIdOf(req);
  switch (err.type) {
    case 'entity.too.large':
      return sendError(
        res,
        requestId,
        new DomainError(ErrorCode.PayloadTooLarge, `Request bodies are limited to ${MAX_BODY_BYTES} bytes.`),
      );
    case 'entity.parse.failed':
      return sendError(
        res,
        requestId,
        new DomainError(ErrorCode.InvalidRequest, 'The request body is not valid JSON.'),
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return sendError(
        res,
        requestId,
        new DomainError(ErrorCode.UnsupportedMediaType, 'Request bodies must be UTF-8 JSON.'),
      );
    default:
      if (err.status === 400) {
        return sendError(
          res,
          requestId,
          new DomainError(ErrorCode.InvalidRequest, 'The request body could not be read.'),
        );
      }
      return next(err);
  }
};
