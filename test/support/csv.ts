/**
 * An RFC 4180 document read back into rows: CRLF between records, `"` quoting with `""` inside.
 * `terminated` says whether the document ends where a record ends (a CRLF after the last one);
 * what follows the last CRLF is not in `rows`.
 */
export function parseCsv(text: string): { rows: string[][]; terminated: boolean } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted && char === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (quoted) {
      field += char;
    } else if (char === ',') {
      endField();
    } else if (char === '\r' && text[i + 1] === '\n') {
      endField();
      rows.push(row);
      row = [];
      i++;
    } else {
      field += char;
    }
  }
  return { rows, terminated: field === '' && row.length === 0 };
}
