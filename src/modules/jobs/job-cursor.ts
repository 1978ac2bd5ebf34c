import { isUUID } from 'class-validator';
import { DomainError } from '../../core/errors/domain-error';

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
    if (typeof id === 'string' && isUUID(id) && !Number.isNaN(date.getTime())) return { createdAt: date, id };
  } catch {
    // Falls through to the client error below.
  }
  throw DomainError.invalid([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);
}
