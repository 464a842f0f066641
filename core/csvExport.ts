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
 * Rows an export asks the store for at once. The local store spends most of an export's CPU
 * decoding the rows it returns, in one stretch per read, while other organizations' requests
 * wait on the same store and cores: small reads keep each stretch short (and cost no more CPU
 * per row than large ones).
 */
export const EXPORT_ROWS_PER_READ = 100;
/** Numbers an export's read may ask for when a filter the store applies matches few of them. */
const EXPORT_NUMBERS_PER_READ_MAX = 500;

/**
 * How many numbers an export's next read asks for, after one that asked for `asked` and got
 * `returned` rows (a filter the store applies drops the others before decoding them): about
 * EXPORT_ROWS_PER_READ rows at the rate the last read matched.
 */
export function exportReadSize(asked: number, returned: number): number {
  const wanted = returned > 0 ? Math.ceil((EXPORT_ROWS_PER_READ * asked) / returned) : EXPORT_NUMBERS_PER_READ_MAX;
  return Math.min(EXPORT_NUMBERS_PER_READ_MAX, Math.max(EXPORT_ROWS_PER_READ, wanted));
}

/**
 * Rows per chunk of the download: each chunk is one write to the connection, so a chunk per row
 * would cost a system call per row; one read's rows make a chunk, so a chunk's text is made
 * while the next read waits on the store.
 */
const ROWS_PER_CHUNK = EXPORT_ROWS_PER_READ;

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
