import { ErrorCode } from './error-code';

export interface FieldError {
  /** Where the problem is, e.g. `input[2].image_url` or `headers.idempotency-key`. */
  path: string;
  message: string;
}

/**
 * An error a client is meant to see. Services throw these; the global filter turns them into
 * the error envelope with the status that belongs to the code.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Seconds the client should wait before retrying; sent as `Retry-After`. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = DomainError.name;
  }

  static invalid(errors: FieldError[], message = 'The request is invalid.'): DomainError {
    return new DomainError(ErrorCode.InvalidRequest, message, { errors });
  }

  static notFound(what = 'resource'): DomainError {
    return new DomainError(ErrorCode.NotFound, `No such ${what}.`);
  }
}
