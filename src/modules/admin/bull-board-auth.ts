import type { RequestHandler } from 'express';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { sendError } from '../../core/http/error-response';
import { requestIdOf } from '../../core/http/request-id';
import { bearerToken, matchesAdminToken } from '../auth/access.guard';

function basicPassword(header: string | undefined): string | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

/**
 * Bull Board is an Express router mounted outside Nest's guards, so it gets its own check of
 * the admin token: as a bearer header for tools, or as the basic-auth password for browsers.
 */
export function bullBoardAuth(adminToken: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!adminToken) return sendError(res, requestIdOf(req), DomainError.notFound('route'));
    const presented = bearerToken(req.headers.authorization) ?? basicPassword(req.headers.authorization);
    if (presented && matchesAdminToken(presented, adminToken)) return next();
    res.setHeader('WWW-Authenticate', 'Basic realm="Bull Board", charset="UTF-8"');
    sendError(res, requestIdOf(req), new DomainError(ErrorCode.Unauthorized, 'The admin token is required.'));
  };
}
