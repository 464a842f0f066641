import { Readable } from 'node:stream';
import { csvCell, csvStream, EXPORT_ROWS_PER_READ, exportReadSize } from '../../core/csvExport';

async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

async function* rows<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

test('cells a spreadsheet would run as a formula are neutralized; others are kept as they are', () => {
  for (const formula of ['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx']) expect(csvCell(formula)).toBe(`'${formula}`);
  expect(csvCell('key.created')).toBe('key.created');
  expect(csvCell(-5)).toBe('-5');
  expect(csvCell(null)).toBe('');
  expect(csvCell(undefined)).toBe('');
});

test('a header line, then one quoted-as-needed line per row, in order', async () => {
  const columns = [
    { header: 'id', value: (r: { id: string; n: number }) => r.id },
    { header: 'amount', value: (r: { id: string; n: number }) => r.n },
  ];
  const out = await text(
    csvStream(
      columns,
      rows([
        { id: 'a,b', n: 1 },
        { id: 'say "hi"', n: -2 },
        { id: '=cmd', n: 3 },
      ]),
    ),
  );
  expect(out).toBe('id,amount\r\n"a,b",1\r\n"say ""hi""",-2\r\n\'=cmd,3\r\n');
});

test('a failing source ends the download with an error rather than a truncated file that looks complete', async () => {
  async function* failing(): AsyncGenerator<{ id: string }> {
    yield { id: 'first' };
    throw new Error('store went away');
  }
  await expect(text(csvStream([{ header: 'id', value: (r: { id: string }) => r.id }], failing()))).rejects.toThrow('store went away');
});

test("an export's next read asks for about EXPORT_ROWS_PER_READ rows at the rate its last read matched, within bounds", () => {
  const n = EXPORT_ROWS_PER_READ;
  expect(exportReadSize(n, n)).toBe(n);
  expect(exportReadSize(n, n / 2)).toBe(2 * n);
  expect(exportReadSize(2 * n, n / 2)).toBe(4 * n);
  // A read that matched nothing, or rarely, asks for the most numbers a read may; never fewer rows than a full read.
  expect(exportReadSize(n, 0)).toBe(5 * n);
  expect(exportReadSize(n, 1)).toBe(5 * n);
  expect(exportReadSize(5 * n, 5 * n)).toBe(n);
});
