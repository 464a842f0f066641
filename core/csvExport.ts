import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';

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

/**
 * Rows per chunk of the download: each chunk is one write to the connection, so a chunk per row
 * would cost a system call per row.
 */
const ROWS_PER_CHUNK = 200;

export function csvStream<T>(columns: readonly CsvColumn<T>[], rows: AsyncIterable<T>): Readable {
  const headers = columns.map((c) => c.header);
  const text = (batch: string[][], header: boolean) => stringify(batch, { header, columns: headers, record_delimiter: 'windows' });
  return Readable.from(
    (async function* () {
      let header = true;
      let batch: string[][] = [];
      for await (const row of rows) {
        batch.push(columns.map((c) => csvCell(c.value(row))));
        if (batch.length < ROWS_PER_CHUNK) continue;
        yield text(batch, header);
        header = false;
        batch = [];
      }
      if (header || batch.length) yield text(batch, header);
    })(),
    { objectMode: false },
  );
}
