import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { basicPassword, bearerToken } from '../../core/http/credentials';
import { OperatorArea, type OperatorTokensService } from '../auth/operator-tokens.service';

/**
 * Bull Board's pages act on the queues (retry, remove, pause) from an operator's browser, so no
 * other site may frame them (clickjacking) and no response is read as another type than the
 * one it declares.
 */
const BULL_BOARD_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Bull Board is an Express router mounted outside Nest's guards, so it gets its own check of
 * the admin token (the admin API's, failures limited per client IP alike): as a bearer header
 * for tools, or as the basic-auth password for browsers. Nest runs it as middleware, so what it
 * throws reaches the error filter, and the answer is the usual envelope.
 */
export function bullBoardAuth(
  operatorTokens: OperatorTokensService,
): (req: Request, res: Response, next: NextFunction) => Promise<void> {
  return async (req, res, next) => {
    res.set(BULL_BOARD_HEADERS);
    const presented = bearerToken(req.headers.authorization) ?? basicPassword(req.headers.authorization);
    try {
      await operatorTokens.authenticate(OperatorArea.Admin, presented, req.ip ?? 'unknown');
    } catch (error) {
      // A browser then prompts for the token; a limited IP's 429 is no prompt.
      if (error instanceof DomainError && error.code === ErrorCode.Unauthorized) {
        res.setHeader('WWW-Authenticate', 'Basic realm="Bull Board", charset="UTF-8"');
      }
      throw error;
    }
    next();
  };
}
