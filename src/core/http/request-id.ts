import { randomUUID } from 'node:crypto';
import { StreamableFile, type HttpServer } from '@nestjs/common';
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
  return typeof req.id === 'string' || typeof req.id === 'number' ? String(req.id) : '';
}

function withRequestId(res: Response, body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || body instanceof StreamableFile) return body;
  return { ...body, request_id: requestIdOf(res.req) };
}

/**
 * Adds `request_id` to every JSON object a route handler returns, so no handler has to. It wraps
 * the HTTP adapter's `reply`, the one call through which Nest hands a handler's value to
 * Express. A global interceptor did this before, at the cost of an RxJS pipeline around every
 * request (BENCHMARKS.md, "API hot paths"). Error envelopes carry the id already (`sendError`).
 */
export function includeRequestIdInReplies(adapter: HttpServer): void {
  const reply = adapter.reply.bind(adapter);
  adapter.reply = (res: Response, body: unknown, statusCode?: number): unknown =>
    reply(res, withRequestId(res, body), statusCode);
}
