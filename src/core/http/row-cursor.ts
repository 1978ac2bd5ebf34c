import { isUUID } from 'class-validator';
import { DomainError } from '../errors/domain-error';

/**
 * An opaque paging cursor that names the last row of a page by its id; the next page is the rows
 * listed after that row's `(created_at, id)`, read back from the row itself. For tables whose
 * `created_at` is written by PostgreSQL (`now()`, microseconds): a timestamp carried through a
 * JavaScript Date would lose its microseconds and make a page skip or repeat rows.
 */
export function encodeRowCursor(id: string): string {
  return Buffer.from(JSON.stringify([id])).toString('base64url');
}

/** The row id a cursor names; anything this API did not hand out is a 400 at `query.cursor`. */
export function decodeRowCursor(value: string): string {
  try {
    const [id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as [unknown];
    if (typeof id === 'string' && isUUID(id)) return id.toLowerCase();
  } catch {
    // Falls through to the client error below.
  }
  throw DomainError.invalid([{ path: 'query.cursor', message: 'is not a cursor this API returned' }]);
}

/** What a listing's query asks for: `limit` rows (`fallback` without one), after the row its `cursor` names. */
export function rowPageQuery(
  query: { limit?: number; cursor?: string },
  fallback: number,
): { limit: number; afterId: string | undefined } {
  return {
    limit: query.limit ?? fallback,
    afterId: query.cursor === undefined ? undefined : decodeRowCursor(query.cursor),
  };
}

/** The page of `limit` rows out of `rows` (read with one more), and the cursor of the next page. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeRowCursor(last.id) : null };
}
