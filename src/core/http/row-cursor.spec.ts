import { DomainError } from '../errors/domain-error';
import { decodeRowCursor, encodeRowCursor, pageOf } from './row-cursor';

const ID = '0d6c1c5e-3f0e-4b8e-9a59-3a4a0e7b2f10';

describe('row cursors', () => {
  it('round-trips a row id', () => {
    expect(decodeRowCursor(encodeRowCursor(ID))).toBe(ID);
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['no UUID', Buffer.from('["2026-01-01"]').toString('base64url')],
    ['not a list', Buffer.from(JSON.stringify({ id: ID })).toString('base64url')],
  ])('refuses %s at query.cursor', (_what, cursor) => {
    expect(() => decodeRowCursor(cursor)).toThrow(DomainError);
    try {
      decodeRowCursor(cursor);
    } catch (error) {
      expect((error as DomainError).details).toEqual({
        errors: [{ path: 'query.cursor', message: 'is not a cursor this API returned' }],
      });
    }
  });

  it('pages rows read with one more: a cursor only when more follow', () => {
    const rows = ['a', 'b', 'c'].map((id) => ({ id }));
    expect(pageOf(rows, 2)).toEqual({ items: rows.slice(0, 2), nextCursor: encodeRowCursor('b') });
    expect(pageOf(rows.slice(0, 2), 2)).toEqual({ items: rows.slice(0, 2), nextCursor: null });
    expect(pageOf([], 2)).toEqual({ items: [], nextCursor: null });
  });
});
