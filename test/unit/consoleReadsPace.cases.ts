import { Readable } from 'node:stream';
import {
  ConsoleReadsPace,
  EXPORT_BYTES_PER_SECOND,
  EXPORT_ROWS_READ_PER_SECOND,
  LIST_PAGE_BURST,
  LIST_PAGES_PER_SECOND,
} from '../../api/console/consoleReadsPace';
import { TestClock } from '../support/testClock';

/** How many list pages the organization starts at once before the pace refuses the next. */
function startAll(pace: ConsoleReadsPace, orgId: string): number {
  let started = 0;
  while (pace.takeListPage(orgId)) started += 1;
  expect(pace.listPagesSpent(orgId)).toBe(true);
  return started;
}

test('an organization starts a burst of list pages at once, then LIST_PAGES_PER_SECOND a second; another organization is not affected', () => {
  const clock = new TestClock(1_000_000);
  const pace = new ConsoleReadsPace(clock.now);
  expect(startAll(pace, 'org_a')).toBe(LIST_PAGE_BURST);
  expect(pace.listPagesSpent('org_b')).toBe(false);
  clock.advance(999 / LIST_PAGES_PER_SECOND);
  expect(pace.listPagesSpent('org_a')).toBe(true);
  clock.advance(1);
  expect(startAll(pace, 'org_a')).toBe(1);
  clock.advance(1000);
  expect(startAll(pace, 'org_a')).toBe(LIST_PAGES_PER_SECOND);
  // Unused seconds give the burst back, and no more than it.
  clock.advance(60_000);
  expect(startAll(pace, 'org_a')).toBe(LIST_PAGE_BURST);
});

test('a page taken and given back (refused by the limits after the pace) leaves its turn to the next; the last one is taken once', () => {
  const clock = new TestClock(1_000_000);
  const pace = new ConsoleReadsPace(clock.now);
  expect(startAll(pace, 'org_a')).toBe(LIST_PAGE_BURST);
  clock.advance(1000 / LIST_PAGES_PER_SECOND);
  expect(pace.takeListPage('org_a')).toBe(true);
  expect(pace.takeListPage('org_a')).toBe(false);
  pace.giveBackListPage('org_a');
  expect(pace.takeListPage('org_a')).toBe(true);
  expect(pace.takeListPage('org_a')).toBe(false);
});

test("an organization's exports share EXPORT_BYTES_PER_SECOND after a first 64 KiB that never waits; another organization's exports do not wait for them", () => {
  const clock = new TestClock(1_000_000);
  const pace = new ConsoleReadsPace(clock.now);
  const chunk = 64 * 1024;
  const second = EXPORT_BYTES_PER_SECOND;
  expect(pace.exportDelayMs('org_a', chunk)).toBe(0);
  // The next chunk, of either of the organization's exports, waits its turn.
  expect(pace.exportDelayMs('org_a', chunk)).toBe(0);
  expect(pace.exportDelayMs('org_a', chunk)).toBe((chunk * 1000) / second);
  expect(pace.exportDelayMs('org_a', chunk)).toBe((2 * chunk * 1000) / second);
  expect(pace.exportDelayMs('org_b', chunk)).toBe(0);
  // After its turns have passed, the organization sends at once again.
  clock.advance(10_000);
  expect(pace.exportDelayMs('org_a', chunk)).toBe(0);
});

test("an organization's exports read EXPORT_ROWS_READ_PER_SECOND rows from the store after a first burst, whatever they send; another organization's do not wait", async () => {
  const clock = new TestClock(1_000_000);
  const waits: number[] = [];
  const pace = new ConsoleReadsPace(clock.now, async (ms) => {
    waits.push(ms);
    clock.advance(ms);
  });
  const read = pace.exportReadTurn('org_a');
  const rows = EXPORT_ROWS_READ_PER_SECOND / 5;
  // The burst (a second's rows) and the first turn go at once; then each read waits its turn.
  for (let i = 0; i < 8; i++) await read(rows);
  expect(waits).toEqual([200, 200]);
  expect(pace.exportReadDelayMs('org_b', rows)).toBe(0);
  expect(pace.exportReadDelayMs('org_a', rows)).toBe(200);
});

test('a paced export sends every byte in order, each chunk after the wait its turn asks for', async () => {
  const clock = new TestClock(1_000_000);
  const waits: number[] = [];
  const pace = new ConsoleReadsPace(clock.now, async (ms) => {
    waits.push(ms);
    clock.advance(ms);
  });
  const chunks = Array.from({ length: 6 }, (_, i) => String(i).repeat(64 * 1024));
  let out = '';
  for await (const part of pace.pacedExport('org_a', Readable.from(chunks))) out += String(part);
  expect(out).toBe(chunks.join(''));
  // Two chunks go at once (the burst and the first turn), then one per turn of the pace.
  const turn = (64 * 1024 * 1000) / EXPORT_BYTES_PER_SECOND;
  expect(waits.length).toBe(4);
  for (const ms of waits) expect(ms).toBeCloseTo(turn, 6);
});

test('a paced export whose source fails ends with that error', async () => {
  const pace = new ConsoleReadsPace(() => 0);
  async function* failing() {
    yield 'first line\r\n';
    throw new Error('store went away');
  }
  const read = async () => {
    for await (const part of pace.pacedExport('org_a', Readable.from(failing()))) void part;
  };
  await expect(read()).rejects.toThrow('store went away');
});
