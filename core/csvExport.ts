import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/**
 * Rows as a CSV download: a header line, then one line per row, produced as the rows arrive so
 * an export of any size never sits in memory. A cell a spreadsheet would run as a formula
 * (starting with `=`, `+`, `-`, `@`, tab or carriage return) is prefixed with `'` (OWASP's CSV
 * injection advice): the file is opened by people, and its text comes partly from callers.
 */
export interface CsvColumn<T> {
  header: string;
  value: (row: T) => string | number | null | undefined;
}

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function csvStream<T>(columns: readonly CsvColumn<T>[], rows: AsyncIterable<T>): Readable {
  const out = stringify({ header: true, columns: columns.map((c) => c.header), record_delimiter: 'windows' });
  const source = Readable.from(
    (async function* () {
      for await (const row of rows) yield columns.map((c) => csvCell(c.value(row)));
    })(),
  );
  source.on('error', (err) => out.destroy(err));
  return source.pipe(out);
}
