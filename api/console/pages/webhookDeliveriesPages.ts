import type { Stores } from '../../../core/deps';
import type { Context } from 'koa';
import { notFound } from '../../../core/problems';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../../core/webhooks/deliveryStatus';
import { replayAllowanceOf } from '../../../core/webhooks/replayAllowance';
import { replayableAmong } from '../../../core/webhooks/replays';
import { validSchedule } from '../../../core/webhooks/retrySchedule';
import { activeEndpointOf } from '../../../core/webhooks/webhookEndpoints';
import { listDeliveries, type DeliveryView } from '../../../core/webhooks/webhookDeliveries';
import { hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { dateText, readOnlyNote, seeOtherSaying, sendConsolePage, stackingTable, type TableCell } from '../consoleLayout';
import { mayChange } from '../pageAccess';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import type { ConsoleVisitor } from '../consoleVisitor';
import { WEBHOOK_OPERATION_PATHS } from '../operations/webhookOperations';
import { deliveryTimeline, instantHtml, timelineHtml } from '../webhooks/deliveryTimeline';
import { actingIn, chosenWorkspace, deliveryWorkspace, workspacesOf } from '../webhooks/consoleWorkspaces';
import { workspaceSelect } from '../webhooks/workspaceSwitch';
import { cursorPager } from '../listPages';

/**
 * `/console/webhooks/deliveries` "Webhook deliveries": every attempt, newest first, filtered by
 * status, event and job (the Jobs pages link here with `?job_id=`); a dead-lettered attempt has
 * "Replay", run as the console twin of `POST /v1/webhook-deliveries/{id}/replays`, and the page
 * says how many replays its endpoint has left this hour (10 per hour) or when the next one is
 * allowed. `/console/webhooks/events/{event_id}` "Event {event_id}": the event's attempts laid
 * against the nine-attempt schedule this service runs.
 */
export const DELIVERIES_PATH = `${CONSOLE_PATHS.webhooks}/deliveries`;
const EVENTS_PATH = `${CONSOLE_PATHS.webhooks}/events`;
const DELIVERIES_PER_PAGE = 25;
/** An event's attempts: nine per run, and replays are capped per hour; a page shows this many. */
const EVENT_ATTEMPTS_SHOWN = 100;

export const eventPath = (eventId: string) => `${EVENTS_PATH}/${encodeURIComponent(eventId)}`;

interface DeliveryQuery {
  workspace: string;
  status?: DeliveryStatus;
  event_id?: string;
  job_id?: string;
  cursor?: string;
}

function text(value: unknown, max = 64): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, max) : undefined;
}

function deliveriesHref(q: DeliveryQuery, cursor?: string): string {
  const params = new URLSearchParams({ workspace: q.workspace });
  if (q.status) params.set('status', q.status);
  if (q.event_id) params.set('event_id', q.event_id);
  if (q.job_id) params.set('job_id', q.job_id);
  if (cursor) params.set('cursor', cursor);
  return `${DELIVERIES_PATH}?${params.toString()}`;
}

/** The workspace of a link that names only a job or an event (the Jobs pages' links): the one that event is in. */
async function workspaceNamedBy(stores: Stores, orgId: string, q: { event_id?: string; job_id?: string }): Promise<string | null> {
  const named = q.event_id ? { eventId: q.event_id } : q.job_id ? { jobId: q.job_id } : null;
  if (!named) return null;
  const event = await stores.webhooks.events.eventInOrg(orgId, named);
  return event?.workspaceId ?? null;
}

type Allowance = { left: number; nextAllowedAt: Date | null };

const nextAllowedHtml = (a: Allowance): SafeHtml => (a.nextAllowedAt ? instantHtml(a.nextAllowedAt.toISOString()) : html`—`);

function statusLabel(status: string): string {
  return status.replace('_', ' ');
}

/** What the receiver answered, in one cell: its HTTP status and the time it took, the error code beneath. */
function answerHtml(d: DeliveryView): SafeHtml {
  const parts = [d.response_status !== null ? `HTTP ${d.response_status}` : null, d.duration_ms !== null ? `${d.duration_ms} ms` : null].filter(Boolean);
  return html`${parts.length ? parts.join(' · ') : '—'}${d.error_code ? html`<br /><span class="id">${d.error_code}</span>` : ''}`;
}

function deliveryRow(d: DeliveryView, visitor: ConsoleVisitor, allowances: ReadonlyMap<string, Allowance>, replayable: ReadonlySet<string>): TableCell[] {
  let action: SafeHtml = html``;
  if (replayable.has(d.delivery_id) && mayChange(visitor)) {
    const allowance = allowances.get(d.endpoint_id);
    action =
      allowance && allowance.left === 0
        ? html`<span class="note">next replay at ${nextAllowedHtml(allowance)}</span>`
        : html`<form class="inline" method="post" action="${WEBHOOK_OPERATION_PATHS.replay.replace(':id', encodeURIComponent(d.delivery_id))}">
            ${hidden('csrf_token', visitor.csrf)}
            <button type="submit" class="secondary" aria-label="Replay event ${d.event_id}">Replay</button>
          </form>`;
  }
  // Seven columns, the ids wrapping, so the table fits a laptop's width whole and stacks on a phone.
  return [
    { body: html`<span class="delivery-status">${statusLabel(d.status)}</span> ${action}`, className: 'wrap' },
    { body: `${d.attempt} · ${d.replay === 0 ? 'Original' : `Replay ${d.replay}`}` },
    { body: instantHtml(d.attempted_at), className: 'when' },
    { body: answerHtml(d), className: 'wrap' },
    { body: d.next_attempt_at ? instantHtml(d.next_attempt_at) : '—', className: 'when' },
    { body: html`<a href="${eventPath(d.event_id)}"><span class="id">${d.event_id}</span></a>`, className: 'wrap' },
    { body: html`<a href="${CONSOLE_PATHS.jobs}/${encodeURIComponent(d.job_id)}"><span class="id">${d.job_id}</span></a>`, className: 'wrap' },
  ];
}

function allowanceNote(endpointId: string, allowance: Allowance, several: boolean): SafeHtml {
  const whose = several ? html` (endpoint <code>${endpointId}</code>)` : '';
  return html`<p>
    Replays left this hour: ${allowance.left}${whose}. ${allowance.left === 0 ? html`The next replay is allowed at ${nextAllowedHtml(allowance)}.` : ''}
  </p>`;
}

function filterForm(q: DeliveryQuery, choices: Awaited<ReturnType<typeof workspacesOf>>): SafeHtml {
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${q.status === value || (!q.status && value === '') ? html`selected` : ''}>${label}</option>`;
  return html`<form method="get" action="${DELIVERIES_PATH}" class="filters">
    ${choices.length > 1 ? html`<div>${workspaceSelect(choices, q.workspace)}</div>` : workspaceSelect(choices, q.workspace)}
    <div>
      <label for="status">Status</label>
      <select id="status" name="status">
        ${option('', 'Any')} ${DELIVERY_STATUSES.map((s) => option(s, statusLabel(s)))}
      </select>
    </div>
    <div>
      <label for="event_id">Event id</label>
      <input id="event_id" name="event_id" type="text" value="${q.event_id ?? ''}" maxlength="64" autocomplete="off" />
    </div>
    <div>
      <label for="job_id">Job id</label>
      <input id="job_id" name="job_id" type="text" value="${q.job_id ?? ''}" maxlength="64" autocomplete="off" />
    </div>
    <div><button type="submit">Filter</button></div>
  </form>`;
}

async function deliveriesPage(ctx: Context, visitor: ConsoleVisitor, { purposeKeys, stores }: ConsoleDeps): Promise<void> {
  const orgId = visitor.user.orgId;
  const choices = await workspacesOf(stores, orgId);
  const status = DELIVERY_STATUSES.find((s) => s === ctx.query.status);
  const named = { event_id: text(ctx.query.event_id), job_id: text(ctx.query.job_id) };
  const asked = text(ctx.query.workspace) ?? (await workspaceNamedBy(stores, orgId, named));
  const q: DeliveryQuery = { workspace: chosenWorkspace(choices, asked, visitor.user.workspaceId), status, ...named, cursor: text(ctx.query.cursor, 512) };
  const page = await listDeliveries(stores, purposeKeys, q.workspace, {
    status: q.status,
    event_id: q.event_id,
    job_id: q.job_id,
    cursor: q.cursor,
    limit: DELIVERIES_PER_PAGE,
  });

  // The allowance of each endpoint a Replay on this page would count against, and of the active one.
  const active = await activeEndpointOf(stores, q.workspace);
  const replayable = await replayableAmong(stores, page.data);
  const endpointIds = [...new Set([...(active ? [active._id] : []), ...page.data.filter((d) => replayable.has(d.delivery_id)).map((d) => d.endpoint_id)])];
  const now = new Date();
  const allowances = new Map<string, Allowance>();
  for (const id of endpointIds) allowances.set(id, await replayAllowanceOf(stores, id, now));

  sendConsolePage(ctx, {
    title: 'Webhook deliveries',
    visitor: visitor.layout,
    current: CONSOLE_PATHS.webhooks,
    body: html`${readOnlyNote(visitor)}
      <p><a href="${CONSOLE_PATHS.webhooks}?workspace=${encodeURIComponent(q.workspace)}">Webhook endpoints</a></p>
      ${filterForm(q, choices)} ${[...allowances].map(([id, a]) => allowanceNote(id, a, allowances.size > 1))}
      ${
        page.data.length === 0
          ? html`<p>No delivery attempt matches.</p>`
          : stackingTable(
              'Delivery attempts, newest first',
              ['Status', 'Attempt', 'Time', 'Answer', 'Next attempt', 'Event', 'Job'],
              page.data.map((d) => deliveryRow(d, visitor, allowances, replayable)),
            )
      }
      ${cursorPager('Pages of deliveries', q.cursor ? deliveriesHref(q) : null, page.next_cursor ? deliveriesHref(q, page.next_cursor) : null)}`,
  });
}

/** The stored body, indented for reading; as stored when it is not JSON. */
function payloadText(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

async function eventPage(ctx: Context, visitor: ConsoleVisitor, { config, purposeKeys, stores }: ConsoleDeps): Promise<void> {
  const eventId = String(ctx.params.event_id);
  const event = await stores.webhooks.events.eventInOrg(visitor.user.orgId, { eventId });
  if (!event) throw notFound('webhook event');
  const { data } = await listDeliveries(stores, purposeKeys, event.workspaceId, { event_id: eventId, limit: EVENT_ATTEMPTS_SHOWN });
  const runs = deliveryTimeline(data, validSchedule(config.webhooks.retryDelaysMs));
  sendConsolePage(ctx, {
    title: `Event ${eventId}`,
    visitor: visitor.layout,
    current: CONSOLE_PATHS.webhooks,
    body: html`<dl class="facts">
        <dt>Type</dt>
        <dd><code>job.completed</code></dd>
        <dt>Job</dt>
        <dd>
          <a href="${CONSOLE_PATHS.jobs}/${encodeURIComponent(event.jobId)}"><code>${event.jobId}</code></a>
        </dd>
        <dt>Endpoint</dt>
        <dd>${event.endpointId ? html`<code>${event.endpointId}</code>` : 'None was active: nothing is delivered'}</dd>
        <dt>Created</dt>
        <dd>${dateText(event.createdAt)}</dd>
        <dt>Dead-lettered</dt>
        <dd>${event.status === 'dead_lettered' ? dateText(event.deadLetteredAt) : 'No'}</dd>
        <dt>Replays</dt>
        <dd>${event.replays}</dd>
      </dl>
      <p><a href="${deliveriesHref({ workspace: event.workspaceId, event_id: eventId })}">Its attempts in Webhook deliveries</a></p>
      <h2>Payload</h2>
      <p class="note">The body every attempt of this event sends, byte for byte; it carries no personal data (the result is read with an API key).</p>
      <pre class="payload"><code>${payloadText(event.body)}</code></pre>
      <h2>Attempts against the schedule</h2>
      ${timelineHtml(runs)}`,
  });
}

export function mountWebhookDeliveriesPages(pages: ConsolePages): void {
  pages.list(DELIVERIES_PATH, deliveriesPage);
  pages.list(`${EVENTS_PATH}/:event_id`, eventPage);
  pages.post(WEBHOOK_OPERATION_PATHS.replay, async (ctx, visitor, form, { road, stores }) => {
    const id = String(ctx.params.id);
    const workspaceId = await deliveryWorkspace(stores, visitor.user.orgId, id);
    const result = await road.run(ctx, actingIn(visitor, workspaceId), 'console.webhooks.replay', { params: { id }, body: {} });
    const accepted = result.body as { event_id: string };
    seeOtherSaying(
      ctx,
      deliveriesHref({ workspace: workspaceId, event_id: accepted.event_id }),
      `Replay started: event ${accepted.event_id} is being sent again; its new attempts are listed below.`,
    );
  });
}
