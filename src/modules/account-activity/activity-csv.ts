import { stringify } from 'csv-stringify/sync';

/**
 * CSV as RFC 4180 writes it (CRLF between records, a field quoted when it holds a comma, a
 * quote or a line break), with a text that a spreadsheet would run as a formula (one starting
 * with = + - @, a tab or a carriage return) prefixed with `'`. Numbers are left as they are, so
 * a negative amount stays a number.
 */
const CSV_OPTIONS = { record_delimiter: 'windows', escape_formulas: true } as const;

export type CsvValue = string | number | null;

/** The header row of `columns`. */
export const csvHeader = (columns: readonly string[]): string => stringify([[...columns]], CSV_OPTIONS);

/** The records, one row each, in the order of the columns; null is an empty field. */
export const csvRows = (records: ReadonlyArray<readonly CsvValue[]>): string =>
  stringify(
    records.map((record) => record.map((value) => value ?? '')),
    CSV_OPTIONS,
  );
