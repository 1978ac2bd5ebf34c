import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
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

/**
 * Routes whose body is raw bytes rather than JSON (`POST /api/v1/uploads`, an image). Their
 * handler reads the body itself, after authentication and rate limiting, so an anonymous or
 * limited caller never makes the API buffer a large body.
 */
const RAW_BODY_ROUTES: ReadonlySet<string> = new Set(['POST /api/v1/uploads']);

const takesRawBody = (req: Request) => RAW_BODY_ROUTES.has(`${req.method} ${req.path.replace(/\/+$/, '')}`);

/** A body in anything but JSON is refused with 415 before it is read, except on a raw-body route. */
export const requireJsonContentType: RequestHandler = (req, res, next) => {
  if (METHODS_WITH_BODY.has(req.method) && hasBody(req.headers) && !req.is('application/json') && !takesRawBody(req)) {
    sendError(
      res,
      requestIdOf(req),
      new DomainError(ErrorCode.UnsupportedMediaType, 'Request bodies must be JSON (Content-Type: application/json).'),
    );
    return;
  }
  next();
};

/**
 * On a raw-body route, an answer sent before the request's body has fully arrived (a 401, a 429,
 * a 415 or a 413 given before the handler reads it) closes the connection. Node would otherwise
 * read the unread body to its end and throw it away, to keep the connection alive: every byte a
 * client claims to send, however large, whoever the client is.
 */
export const closeOnUnreadRawBody: RequestHandler = (req, res, next) => {
  if (takesRawBody(req) && hasBody(req.headers)) {
    // Every answer passes through writeHead (Node's implicit header write calls it too).
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
    res.writeHead = ((...args: unknown[]) => {
      if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close');
      return writeHead(...args);
    }) as Response['writeHead'];
  }
  next();
};

export const parseJsonBody: RequestHandler = express.json({ limit: MAX_BODY_BYTES, strict: true });

interface BodyParserError {
  type?: string;
  status?: number;
  /** The byte limit a too-large body passed. */
  limit?: number;
}

/** body-parser's error as the envelope's, or null for one that is not about the request body. */
function bodyError(err: BodyParserError): DomainError | null {
  switch (err.type) {
    case 'entity.too.large':
      return new DomainError(
        ErrorCode.PayloadTooLarge,
        `Request bodies are limited to ${err.limit ?? MAX_BODY_BYTES} bytes.`,
        { max_bytes: err.limit ?? MAX_BODY_BYTES },
      );
    case 'entity.parse.failed':
      return new DomainError(ErrorCode.InvalidRequest, 'The request body is not valid JSON.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainError(ErrorCode.UnsupportedMediaType, 'Request bodies must be UTF-8 JSON.');
    default:
      return err.status === 400
        ? new DomainError(ErrorCode.InvalidRequest, 'The request body could not be read.')
        : null;
  }
}

/**
 * body-parser reports through Express's error chain, which runs before Nest's router and its
 * exception filter, so its errors are translated to the envelope here.
 */
export const translateBodyParserErrors: ErrorRequestHandler = (err: BodyParserError, req, res, next) => {
  const error = bodyError(err);
  if (!error) return next(err);
  sendError(res, requestIdOf(req), error);
};

const bodyTooLarge = (maxBytes: number) =>
  new DomainError(ErrorCode.PayloadTooLarge, `Request bodies are limited to ${maxBytes} bytes.`, {
    max_bytes: maxBytes,
  });

/**
 * Ends the connection once the answer is sent instead of reading the rest of the body: Node
 * would otherwise drain an unread body to keep the connection alive, reading every byte a
 * client claims to send.
 */
const closeAfterAnswer = (res: Response): void => {
  res.setHeader('Connection', 'close');
};

/**
 * The raw bytes of a raw-body route's request (see RAW_BODY_ROUTES), at most `maxBytes`; an
 * empty buffer when there is no body. A Content-Length over `maxBytes` is refused with a 413
 * `payload_too_large` DomainError before a byte is read; a body that passes `maxBytes` while
 * arriving (chunked) is refused the same way as soon as it does. Either way what was received is
 * dropped, nothing more is read, and the connection closes after the answer. A compressed body
 * is a 415 (the byte limit would count the wrong bytes' worth); one that breaks off is a 400.
 * Read here rather than with express.raw: body-parser, on passing its limit, goes on reading the
 * rest of the body to discard it before the answer is sent.
 */
export function readRawBody(req: Request, res: Response, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    closeAfterAnswer(res);
    return Promise.reject(
      new DomainError(ErrorCode.UnsupportedMediaType, 'The body must not be compressed (Content-Encoding).'),
    );
  }
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    closeAfterAnswer(res);
    return Promise.reject(bodyTooLarge(maxBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: () => void) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        req.pause();
        chunks.length = 0;
        closeAfterAnswer(res);
        finish(() => reject(bodyTooLarge(maxBytes)));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks, received)));
    const broken = () => new DomainError(ErrorCode.InvalidRequest, 'The request body could not be read.');
    const onError = () => finish(() => reject(broken()));
    const onClose = () => finish(() => reject(broken()));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
