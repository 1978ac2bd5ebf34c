import { DomainError } from '../../core/errors/domain-error';
import { decodeReviewCursor, encodeReviewCursor } from './review-cursor';

const cursor = { position: '2026-11-28T10:00:00.123456Z', id: '5a0d1c52-1f0e-4a49-9b8b-2f0f3e2b1a11' };
const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe(decodeReviewCursor.name, () => {
  it('reads back what encodeReviewCursor wrote, to the microsecond', () => {
    expect(decodeReviewCursor(encodeReviewCursor(cursor))).toEqual(cursor);
  });

  it.each([
    ['not base64 JSON', 'not a cursor'],
    ['a millisecond position', encoded(['2026-11-28T10:00:00.123Z', cursor.id])],
    ['a position PostgreSQL cannot hold', encoded(['-100000-01-01T00:00:00.000000Z', cursor.id])],
    ['an id that is not a UUID', encoded([cursor.position, 'x'])],
    ['a JSON object', encoded({ position: cursor.position, id: cursor.id })],
  ])('refuses %s as a 400 at query.cursor', (_, value) => {
    expect(() => decodeReviewCursor(value)).toThrow(DomainError);
    try {
      decodeReviewCursor(value);
    } catch (error) {
      expect((error as DomainError).details).toEqual({
        errors: [{ path: 'query.cursor', message: 'is not a cursor this API returned' }],
      });
    }
  });
});
