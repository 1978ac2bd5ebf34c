import { isUUID } from 'class-validator';
import { DomainError } from '../../core/errors/domain-error';

/**
 * `completed_at` to the microsecond, as PostgreSQL keeps it: a cursor at millisecond precision
 * would skip or repeat results that completed within the same millisecond.
 */
const POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export interface ReviewCursor {
  position: string;
  id: string;
}

/** Opaque to clients: the position of the last result of a page. */
export function encodeReviewCursor(cursor: ReviewCursor): string {
  return Buffer.from(JSON.stringify([cursor.position, cursor.id])).toString('base64url');
}

export function decodeReviewCursor(value: string): ReviewCursor {
  try {
    const [position, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as [unknown, unknown];
    const wellFormed =
      typeof position === 'string' && POSITION.test(position) && !Number.isNaN(new Date(position).getTime());
    if (wellFormed && typeof id === 'string' && isUUID(id)) return { position, id };
  } catch {
    // Falls through to the client error below.
  }
  throw DomainError.invalid([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);
}
