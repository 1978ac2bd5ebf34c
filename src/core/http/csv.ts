import { Readable } from 'node:stream';
import { StreamableFile } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import { DomainError } from '../errors/domain-error';

/**
 * CSV as RFC 4180 writes it (CRLF between records, a field quoted when it holds a comma, a
 * quote or a line break), with a text that a spreadsheet would run as a formula (one starting
 * with = + - @, a tab or a carriage return) prefixed with `'`. Numbers are left as they are, so
 * a negative amount stays a number.
 */
const CSV_OPTIONS = {
  record_delimiter: 'windows',
  // With a record delimiter named, csv-stringify would quote a field for a CRLF only, not a lone \n or \r.
  quote_record_delimiter: true,
  escape_formulas: true,
} as const;

export type CsvValue = string | number | null;

/** The header row of `columns`. */
export const csvHeader = (columns: readonly string[]): string => stringify([[...columns]], CSV_OPTIONS);

/** The records, one row each, in the order of the columns; null is an empty field. */
export const csvRows = (records: ReadonlyArray<readonly CsvValue[]>): string =>
  stringify(
    records.map((record) => record.map((value) => value ?? '')),
    CSV_OPTIONS,
  );

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** A CSV response the browser saves as `filename`: the whole text, or chunks as a generator yields them. */
export function csvAttachment(body: string | AsyncIterable<string>, filename: string): StreamableFile {
  const options = { type: CSV_CONTENT_TYPE, disposition: `attachment; filename="${filename}"` };
  return typeof body === 'string'
    ? new StreamableFile(Buffer.from(body, 'utf8'), options)
    : new StreamableFile(Readable.from(body), options);
}

/** For an export that takes no parameter: a `limit` or `cursor` meant for a JSON read is a 400, not ignored. */
export function refuseQueryParameters(query: Record<string, unknown>): void {
  const names = Object.keys(query);
  if (names.length > 0) {
    throw DomainError.invalid(names.map((name) => ({ path: `query.${name}`, message: 'is not taken by this export' })));
  }
}
