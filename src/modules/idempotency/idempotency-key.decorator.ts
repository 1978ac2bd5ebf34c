import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError } from '../../core/errors/domain-error';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,160}$/;

const headerOf = (context: ExecutionContext): string | string[] | undefined =>
  context.switchToHttp().getRequest<Request>().headers['idempotency-key'];

function assertValidKey(value: string): string {
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw DomainError.invalid([
      {
        path: 'headers.idempotency-key',
        message: 'must be 8 to 160 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-"',
      },
    ]);
  }
  return value;
}

/** The required `Idempotency-Key` header of create endpoints, validated (spec 4.1). */
export const IdempotencyKeyHeader = createParamDecorator((_data: unknown, context: ExecutionContext): string => {
  const value = headerOf(context);
  if (typeof value !== 'string' || value.length === 0) {
    throw DomainError.invalid([{ path: 'headers.idempotency-key', message: 'the Idempotency-Key header is required' }]);
  }
  return assertValidKey(value);
});

/**
 * The optional `Idempotency-Key` header of operator endpoints: undefined when absent, validated
 * like the required one when present (an empty header is refused, not taken as absent).
 */
export const OptionalIdempotencyKeyHeader = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined => {
    const value = headerOf(context);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      throw DomainError.invalid([{ path: 'headers.idempotency-key', message: 'must be sent once' }]);
    }
    return assertValidKey(value);
  },
);
