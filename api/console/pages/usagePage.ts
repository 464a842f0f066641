import type { Context } from 'koa';
import { allLedgerEntries, listLedgerEntries, type LedgerEntryView, type LedgerFilter } from '../../../core/credits/ledgerEntries';
import { csvStream, type CsvColumn } from '../../../core/csvExport';
import { keyFamiliesOf } from '../../../core/keys/keyFamilies';
import { OPERATIONS } from '../../../core/limits/limitTable';
import { DAY_MS } from '../../../core/usage/usageBuckets';
import { applicationNamesOfOrg } from '../../../core/oauth/consentGrants';
import { countedUsage, seriesOf, usageSeries, type Granularity, type UsagePoint } from '../../../core/usage/usageSeries';
import { hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { barChart } from '../charts/barChart';
import { creditsChart, rangeEndingAt, requestsChart } from '../charts/usageCharts';
import { CONSOLE_PATHS } from '../consolePaths';
import { dateText, scrollingTable, sendConsolePage, setConsoleHeaders, stackingTable, type TableCell } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import { cursorPager } from '../listPages';

/**
 * `/console/usage` "Usage": the overview's two charts over a chosen range, and the credit
 * ledger (every grant and charge) with filters, cursor pages and a CSV download of the filtered
 * entries, streamed from the store however many there are.
 *
 * Who sees it: every signed-in person of the organization, admin or member, whatever their
 * permissions. What the organization spends is not secret among its own people, and nothing here
 * is a secret or a contact value; the ledger names key families by their names, never keys.
 */
export const LEDGER_CSV_PATH = `${CONSOLE_PATHS.usage}/ledger.csv`;
export const USAGE_CSV_PATH = `${CONSOLE_PATHS.usage}/usage.csv`;
const LEDGER_PAGE = 50;

export const USAGE_RANGES = {
  day: { label: 'Day', granularity: 'hour', buckets: 24 },
  '7d': { label: '7 days', granularity: 'day', buckets: 7 },
  '30d': { label: '30 days', granularity: 'day', buckets: 30 },
  '90d': { label: '90 days', granularity: 'day', buckets: 90 },
} as const satisfies Record<string, { label: string; granularity: Granularity; buckets: number }>;
type RangeName = keyof typeof USAGE_RANGES;
const DEFAULT_RANGE: RangeName = '30d';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const FAMILY_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The ledger filter as the form gives it: text as typed, kept to fill the form again. */
export interface LedgerForm {
  operation: string;
  key: string;
  from: string;
  to: string;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function dayOf(value: string): Date | undefined {
  if (!DATE.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** Only values the form could have sent are kept; "To" is a whole day, so the filter ends at its end. */
export function ledgerFormOf(query: Record<string, unknown>): { form: LedgerForm; filter: LedgerFilter } {
  const operation = (OPERATIONS as readonly string[]).includes(text(query.operation)) ? text(query.operation) : '';
  const key = FAMILY_ID.test(text(query.key)) ? text(query.key) : '';
  const from = dayOf(text(query.from));
  const to = dayOf(text(query.to));
  return {
    form: { operation, key, from: from ? text(query.from) : '', to: to ? text(query.to) : '' },
    filter: {
      ...(operation ? { operation } : {}),
      ...(key ? { familyId: key } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to: new Date(to.getTime() + DAY_MS) } : {}),
    },
  };
}

/**
 * An entry's amount with the sign the page shows: a charge takes credits away (negative), a grant
 * and an opening balance add them, so the amounts of the whole ledger add up to the balance.
 */
export function ledgerAmount(e: Pick<LedgerEntryView, 'kind' | 'amount'>): number {
  return e.kind === 'charge' ? -Math.abs(e.amount) : e.amount;
}

function queryString(values: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

function signedAmount(e: LedgerEntryView): string {
  const signed = ledgerAmount(e);
  if (e.kind === 'charge') return `−${Math.abs(signed).toLocaleString('en')}`;
  if (e.kind === 'grant') return `+${signed.toLocaleString('en')}`;
  return `${signed.toLocaleString('en')} (opening balance)`;
}

function whatOf(e: LedgerEntryView): string {
  return e.operation ?? (e.kind === 'grant' ? 'Credits granted' : 'Opening balance');
}

function rangeLinks(current: RangeName, form: LedgerForm): SafeHtml {
  return html`<nav aria-label="Range">
    <ul class="choices">
      ${(Object.keys(USAGE_RANGES) as RangeName[]).map(
        (name) =>
          html`<li>
            <a href="${CONSOLE_PATHS.usage}${queryString({ range: name, ...form })}" ${name === current ? html`aria-current="true"` : ''}
              >${USAGE_RANGES[name].label}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function filterForm(range: RangeName, form: LedgerForm, families: { family_id: string; name: string }[]): SafeHtml {
  const option = (value: string, label: string, selected: string) =>
    html`<option value="${value}" ${value === selected ? html`selected` : ''}>${label}</option>`;
  return html`<form method="get" action="${CONSOLE_PATHS.usage}" class="filters">
    ${hidden('range', range)}
    <div>
      <label for="operation">Operation</label>
      <select id="operation" name="operation">
        ${option('', 'Any operation', form.operation)} ${OPERATIONS.map((op) => option(op, op, form.operation))}
      </select>
    </div>
    <div>
      <label for="key">Key</label>
      <select id="key" name="key">
        ${option('', 'Any key', form.key)} ${families.map((f) => option(f.family_id, f.name, form.key))}
      </select>
    </div>
    <div>
      <label for="from">From</label>
      <input id="from" name="from" type="date" value="${form.from}" />
    </div>
    <div>
      <label for="to">To</label>
      <input id="to" name="to" type="date" value="${form.to}" />
    </div>
    <div><button type="submit">Filter</button></div>
  </form>`;
}

/**
 * "Spend by connected application": the chart range's credits and calls of each AI application
 * the organization's people connected (tool-server calls, by grant), beside everything else.
 */
function applicationSpendSection(points: readonly UsagePoint[], names: ReadonlyMap<string, string>): SafeHtml {
  const totals = new Map<string, { credits: number; calls: number }>();
  for (const p of points) {
    const key = p.application ?? '';
    const total = totals.get(key) ?? { credits: 0, calls: 0 };
    total.credits += p.credits;
    total.calls += p.requests.success + p.requests.client_error + p.requests.rate_limited + p.requests.server_error;
    totals.set(key, total);
  }
  const rows = [...totals.entries()]
    .sort(([a, x], [b, y]) => (a === '' ? 1 : b === '' ? -1 : y.credits - x.credits))
    .map(([id, t]): TableCell[] => [
      { className: 'wrap', body: id === '' ? 'API keys and M2M clients' : (names.get(id) ?? 'A disconnected application') },
      { body: t.credits.toLocaleString('en') },
      { body: t.calls.toLocaleString('en') },
    ]);
  return html`<h2>Spend by connected application</h2>
    ${rows.length ? stackingTable('Spend by connected application', ['Application', 'Credits', 'Calls'], rows) : html`<p>Nothing was counted in this range.</p>`}`;
}

export function mountUsagePage(pages: ConsolePages): void {
  pages.list(CONSOLE_PATHS.usage, async (ctx, visitor, { stores, purposeKeys, ledgerHeads }) => {
    const orgId = visitor.user.orgId;
    const range: RangeName = text(ctx.query.range) in USAGE_RANGES ? (text(ctx.query.range) as RangeName) : DEFAULT_RANGE;
    const { granularity, buckets } = USAGE_RANGES[range];
    const { form, filter } = ledgerFormOf(ctx.query);
    const cursor = text(ctx.query.cursor) || undefined;
    const now = Date.now();
    const chartRange = rangeEndingAt(granularity, buckets, now);
    const [counted, families, ledger, applicationNames] = await Promise.all([
      countedUsage(stores, { orgId, granularity, from: new Date(chartRange.fromMs), to: new Date(chartRange.toMs) }, now),
      keyFamiliesOf(stores, orgId),
      listLedgerEntries(stores, purposeKeys, orgId, filter, { cursor, limit: LEDGER_PAGE }, ledgerHeads.seqs),
      applicationNamesOfOrg(stores, orgId),
    ]);
    // The charts and the spend by application are two series of the same counter rows, read once.
    const points = seriesOf(counted, granularity);
    const byApplication = seriesOf(counted, granularity, undefined, true);
    const names = new Map(families.map((f) => [f.family_id, f.name]));
    const here = { range, ...form };
    const rows = ledger.data.map(
      (e) =>
        html`<tr>
          <td><code>${e.receipt_id}</code></td>
          <td>${whatOf(e)}</td>
          <td>${e.family_id ? (names.get(e.family_id) ?? e.family_id) : '—'}</td>
          <td>${signedAmount(e)}</td>
          <td>${e.balance_after.toLocaleString('en')}</td>
          <td>${dateText(e.time)}</td>
        </tr>`,
    );
    sendConsolePage(ctx, {
      title: 'Usage',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.usage,
      body: html`<h2>Charts</h2>
        ${rangeLinks(range, form)} ${barChart(creditsChart(points, chartRange))} ${barChart(requestsChart(points, chartRange))}
        <p><a href="${USAGE_CSV_PATH}${queryString({ range })}" download>Download usage CSV</a></p>
        ${applicationSpendSection(byApplication, applicationNames)}
        <h2>Ledger</h2>
        <p class="note">Every grant and charge of the organization, newest first. Times are UTC; "To" includes the whole day.</p>
        ${filterForm(range, form, families)}
        <p><a href="${LEDGER_CSV_PATH}${queryString({ ...form })}" download>Download ledger CSV</a></p>
        ${
          rows.length
            ? scrollingTable('Ledger entries', ['Receipt id', 'Operation', 'Key name', 'Amount', 'Balance after', 'Time'], rows)
            : html`<p>${ledger.next_cursor ? 'No ledger entries match among the most recent ones looked at.' : 'No ledger entries match.'}</p>`
        }
        ${
          rows.length < LEDGER_PAGE && ledger.next_cursor
            ? html`<p class="note">A page looks through a bounded stretch of the ledger; older entries may match further back ("Next page").</p>`
            : ''
        }
        ${cursorPager(
          'Pages of the ledger',
          cursor ? `${CONSOLE_PATHS.usage}${queryString(here)}` : null,
          ledger.next_cursor ? `${CONSOLE_PATHS.usage}${queryString({ ...here, cursor: ledger.next_cursor })}` : null,
        )}`,
    });
  });

  pages.download(LEDGER_CSV_PATH, async (ctx, visitor, { reads, stores }) => {
    const orgId = visitor.user.orgId;
    const { filter } = ledgerFormOf(ctx.query);
    const names = new Map((await keyFamiliesOf(stores, orgId)).map((f) => [f.family_id, f.name]));
    sendCsvExport(ctx, 'ledger.csv', ledgerCsvColumns(names), allLedgerEntries(stores, orgId, filter, reads.exportReadTurn(orgId)));
  });

  pages.download(USAGE_CSV_PATH, async (ctx, visitor, { stores }) => {
    const range: RangeName = text(ctx.query.range) in USAGE_RANGES ? (text(ctx.query.range) as RangeName) : DEFAULT_RANGE;
    const { granularity, buckets } = USAGE_RANGES[range];
    const now = Date.now();
    const chartRange = rangeEndingAt(granularity, buckets, now);
    const points = await usageSeries(stores, { orgId: visitor.user.orgId, granularity, from: new Date(chartRange.fromMs), to: new Date(chartRange.toMs) }, now);
    sendCsvExport(ctx, 'usage.csv', USAGE_CSV_COLUMNS, rowsOf(points));
  });
}

/** The usage CSV: one row per bucket and operation, its requests by outcome and its credits (GET /v1/usage's points). */
export const USAGE_CSV_COLUMNS: CsvColumn<UsagePoint>[] = [
  { header: 'start', value: (p) => p.start },
  { header: 'operation', value: (p) => p.operation },
  { header: 'success', value: (p) => p.requests.success },
  { header: 'client_error', value: (p) => p.requests.client_error },
  { header: 'rate_limited', value: (p) => p.requests.rate_limited },
  { header: 'server_error', value: (p) => p.requests.server_error },
  { header: 'credits', value: (p) => p.credits },
];

async function* rowsOf<T>(rows: readonly T[]): AsyncGenerator<T> {
  yield* rows;
}

export function ledgerCsvColumns(names: ReadonlyMap<string, string>): CsvColumn<LedgerEntryView>[] {
  return [
    { header: 'receipt_id', value: (e) => e.receipt_id },
    { header: 'kind', value: (e) => e.kind },
    { header: 'operation', value: (e) => e.operation },
    { header: 'key_name', value: (e) => (e.family_id ? (names.get(e.family_id) ?? null) : null) },
    { header: 'family_id', value: (e) => e.family_id },
    { header: 'amount', value: (e) => ledgerAmount(e) },
    { header: 'balance_after', value: (e) => e.balance_after },
    { header: 'time', value: (e) => e.time },
  ];
}

/** The one way the Usage page hands out a CSV: the ledger and the usage alike, streamed as the rows come. */
function sendCsvExport<T>(ctx: Context, filename: string, columns: CsvColumn<T>[], rows: AsyncIterable<T>): void {
  setConsoleHeaders(ctx);
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${filename}"`);
  ctx.body = csvStream(columns, rows);
}
