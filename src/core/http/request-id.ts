import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,160}$/;

/**
 * Gives every request an id before anything else can fail: the client's `X-Request-Id` when it
 * is well formed, a generated one otherwise (an invalid header is replaced, not rejected).
 */
export function assignRequestId(req: Request, res: Response, next: NextFunction): void {
  const header = req.headers['x-request-id'];
  const id = typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID();
  req.id = id;
  res.setHeader('X-Request-Id', id);
  next();
}

export function requestIdOf(req: Request): string {
  return typeof req.id === 'string' ? req.id : String(req.id ?? '');
}
