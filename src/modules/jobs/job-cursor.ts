import { isUUID } from 'class-validator';
import { DomainError } from '../../core/errors/domain-error';

/**
 * The exact form `toISOString` gives for years 0000 to 9999. A forged cursor could otherwise carry
 * a date JavaScript accepts but PostgreSQL cannot hold (year -100000), failing the query with a 500.
 */
const CURSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface JobCursor {
  createdAt: Date;
  id: string;
}

/** Opaque to clients: the position of the last job of a page. */
export function encodeCursor(cursor: JobCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString('base64url');
}

export function decodeCursor(value: string): JobCursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(createdAt);
    const wellFormed =
      typeof createdAt === 'string' && CURSOR_TIMESTAMP.test(createdAt) && !Number.isNaN(date.getTime());
    if (typeof id === 'string' && isUUID(id) && wellFormed) return { createdAt: date, id };
  } catch {
    // Falls through to the client error below.
  }
  throw DomainError.invalid([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);
}
