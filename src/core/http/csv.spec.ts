import { csvHeader, csvRows, refuseQueryParameters } from './csv';
import { DomainError } from '../errors/domain-error';

describe('csv', () => {
  it('writes a header and records ending in CRLF, quoting commas, quotes and line breaks', () => {
    expect(csvHeader(['id', 'reason'])).toBe('id,reason\r\n');
    expect(
      csvRows([
        ['a', 'one, two'],
        ['b', 'say "hi"'],
        ['c', 'line\nbreak'],
        ['d', null],
      ]),
    ).toBe('a,"one, two"\r\nb,"say ""hi"""\r\nc,"line\nbreak"\r\nd,\r\n');
  });

  it('defuses text a spreadsheet would run as a formula, and leaves numbers as they are', () => {
    expect(csvRows([['=1+1', '+SUM(A1)', '-x', '@cmd', '\tTAB', -3, 0]])).toBe(
      "'=1+1,'+SUM(A1),'-x,'@cmd,'\tTAB,-3,0\r\n",
    );
    expect(csvRows([['=HYPERLINK("https://x.example","go")']])).toBe(`"'=HYPERLINK(""https://x.example"",""go"")"\r\n`);
  });

  it('writes nothing for no records', () => {
    expect(csvRows([])).toBe('');
  });

  it('refuses any query parameter of an export that takes none, naming each', () => {
    expect(() => refuseQueryParameters({})).not.toThrow();
    try {
      refuseQueryParameters({ limit: '5', cursor: 'x' });
      throw new Error('not refused');
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).details).toEqual({
        errors: [
          { path: 'query.limit', message: 'is not taken by this export' },
          { path: 'query.cursor', message: 'is not taken by this export' },
        ],
      });
    }
  });
});
