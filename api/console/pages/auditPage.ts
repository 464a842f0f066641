import type { Context } from 'koa';
import { AUDIT_ACTIONS, isAuditAction, isAuditActor } from '../../../core/audit/auditActions';
import { allAuditEvents, listAuditEvents, type AuditEventView } from '../../../core/audit/auditLog';
import { csvStream, type CsvColumn } from '../../../core/csvExport';
import { Problem } from '../../../core/problems';
import { errorNote } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { notAllowed } from '../consoleErrors';
import { dateText, sendConsolePage, setConsoleHeaders, stackingTable, type TableCell } from '../consoleLayout';
import { actorNames, type ActorName } from '../actorNames';
import type { ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import { mayReadAuditLog } from '../pageAccess';
import { selectInput } from '../formControls';
import { cursorPager } from '../listPages';

/**
 * `/console/audit` "Audit log" (DECISIONS.md "Organization console"): the organization's entries
 * newest first (core/audit/auditLog.ts), filtered by action and actor, in cursor pages, and the
 * filtered entries as a CSV download. Read by admins, and by members holding `audit.v1:read`
 * (the permission GET /v1/audit-events asks of a key).
 */
export const AUDIT_DOWNLOAD_PATH = `${CONSOLE_PATHS.audit}/download`;
export const AUDIT_ROWS_PER_PAGE = 50;
/**
 * Entry numbers one filtered console page looks through at most: one read of the store (the
 * `/v1` list looks through up to MAX_SCAN). A person's filter that matches rarely gets a shorter
 * page and "Next page"; a script reloading such pages costs the store one read each.
 */
export const AUDIT_PAGE_SCAN = 500;

interface AuditFilter {
  action?: string;
  actor?: string;
}

/** The filters as typed, and the refusal of one that cannot match anything. */
function filterOf(ctx: Context): { filter: AuditFilter; typed: AuditFilter; message: string | null } {
  const action = typeof ctx.query.action === 'string' ? ctx.query.action.trim() : '';
  const actor = typeof ctx.query.actor === 'string' ? ctx.query.actor.trim() : '';
  const typed = { action, actor };
  if (action && !isAuditAction(action)) return { filter: {}, typed, message: 'Choose an action from the list.' };
  if (actor && !isAuditActor(actor)) {
    return { filter: {}, typed, message: 'An actor is written user:<id>, key:<id>, m2m:<id> or operator.' };
  }
  return { filter: { action: action || undefined, actor: actor || undefined }, typed, message: null };
}

/** An entry's values as text, leaving out those that only repeat its target. */
function valuesText(values: Record<string, unknown> | null, target: string): string {
  if (!values) return '';
  return Object.entries(values)
    .filter(([, v]) => v !== target)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v === null ? 'none' : String(v)}`)
    .join('; ');
}

function entryRow(e: AuditEventView, actors: Map<string, ActorName>): TableCell[] {
  const actor = actors.get(e.actor);
  return [
    { body: dateText(e.time) },
    { body: html`${actor?.label ?? e.actor}${actor?.id ? html`<br /><span class="id">${actor.id}</span>` : ''}`, className: 'wrap' },
    { body: html`<code>${e.action}</code>` },
    { body: html`<span class="id">${e.target}</span>`, className: 'wrap' },
    { body: valuesText(e.before, e.target), className: 'wrap values' },
    { body: valuesText(e.after, e.target), className: 'wrap values' },
    { body: e.client_address ?? '—' },
  ];
}

function query(filter: AuditFilter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  if (filter.action) q.set('action', filter.action);
  if (filter.actor) q.set('actor', filter.actor);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

function filterForm(typed: AuditFilter): SafeHtml {
  return html`<form method="get" action="${CONSOLE_PATHS.audit}" class="filters">
    <div>
      ${selectInput('action', 'Action', [{ value: '', label: 'Any action' }, ...AUDIT_ACTIONS.map((a) => ({ value: a, label: a }))], typed.action ?? '')}
    </div>
    <div>
      <label for="actor">Actor</label>
      <input id="actor" name="actor" type="text" value="${typed.actor ?? ''}" maxlength="110" autocomplete="off" aria-describedby="actor-note" />
      <p class="note" id="actor-note"><code>user:&lt;id&gt;</code>, <code>key:&lt;id&gt;</code>, <code>m2m:&lt;id&gt;</code> or <code>operator</code></p>
    </div>
    <div><button type="submit">Filter</button></div>
  </form>`;
}

const CSV_COLUMNS: CsvColumn<AuditEventView>[] = [
  { header: 'time', value: (e) => e.time },
  { header: 'actor', value: (e) => e.actor },
  { header: 'action', value: (e) => e.action },
  { header: 'target', value: (e) => e.target },
  { header: 'before', value: (e) => (e.before ? JSON.stringify(e.before) : '') },
  { header: 'after', value: (e) => (e.after ? JSON.stringify(e.after) : '') },
  { header: 'client_address', value: (e) => e.client_address },
  { header: 'event_id', value: (e) => e.event_id },
];

export function mountAuditPage(pages: ConsolePages): void {
  pages.list(CONSOLE_PATHS.audit, async (ctx, visitor, { stores, purposeKeys }) => {
    if (!mayReadAuditLog(visitor.layout)) throw notAllowed('Reading the audit log needs the admin role or the audit.v1:read permission.');
    const { filter, typed, message } = filterOf(ctx);
    const cursor = typeof ctx.query.cursor === 'string' && !message ? ctx.query.cursor : undefined;
    let page: Awaited<ReturnType<typeof listAuditEvents>> = { data: [], next_cursor: null };
    let problem = message;
    if (!message) {
      try {
        page = await listAuditEvents(stores, purposeKeys, visitor.user.orgId, { ...filter, cursor, limit: AUDIT_ROWS_PER_PAGE }, AUDIT_PAGE_SCAN);
      } catch (err) {
        if (!(err instanceof Problem) || err.status >= 500) throw err;
        problem = 'This page link is no longer valid for these filters; start again from the first page.';
      }
    }
    const actors = await actorNames(
      stores,
      visitor.user.orgId,
      page.data.map((e) => e.actor),
    );
    sendConsolePage(
      ctx,
      {
        title: 'Audit log',
        visitor: visitor.layout,
        current: CONSOLE_PATHS.audit,
        body: html`${filterForm(typed)} ${errorNote(problem)}
          <p><a href="${AUDIT_DOWNLOAD_PATH}${query(filter)}">Download CSV</a></p>
          ${
            page.data.length
              ? stackingTable(
                  'Audit log entries',
                  ['Time', 'Actor', 'Action', 'Target', 'Before', 'After', 'Client address'],
                  page.data.map((e) => entryRow(e, actors)),
                )
              : html`<p>${problem ? '' : page.next_cursor ? 'No entry matches among the most recent ones looked at.' : 'No entry matches.'}</p>`
          }
          ${
            page.data.length < AUDIT_ROWS_PER_PAGE && page.next_cursor
              ? html`<p class="note">A page looks through a bounded stretch of the log; older entries may match further back ("Next page").</p>`
              : ''
          }
          ${cursorPager(
            'Pages of the audit log',
            cursor ? `${CONSOLE_PATHS.audit}${query(filter)}` : null,
            page.next_cursor ? `${CONSOLE_PATHS.audit}${query(filter, { cursor: page.next_cursor })}` : null,
          )}`,
      },
      problem ? (message ? 422 : 400) : 200,
    );
  });

  pages.download(AUDIT_DOWNLOAD_PATH, async (ctx, visitor, { reads, stores }) => {
    if (!mayReadAuditLog(visitor.layout)) throw notAllowed('Reading the audit log needs the admin role or the audit.v1:read permission.');
    const { filter, message } = filterOf(ctx);
    if (message) throw new Problem('validation_failed', message);
    setConsoleHeaders(ctx);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', 'attachment; filename=audit-log.csv');
    ctx.body = csvStream(CSV_COLUMNS, allAuditEvents(stores, visitor.user.orgId, filter, reads.exportReadTurn(visitor.user.orgId)));
  });
}
