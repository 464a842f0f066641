import { findOwnJob, jobView, type JobView } from '../../../core/jobs/contactRetrievalJobs';
import { listJobRecords } from '../../../core/jobs/jobList';
import { jobStarter } from '../../../core/jobs/jobStarter';
import type { JobDoc } from '../../../core/jobs/store';
import { readJobResult, type JobResultPage } from '../../../core/jobs/jobResults';
import { COUNT_KEYS, FINAL_JOB_STATUSES, type JobStatus } from '../../../core/jobs/jobTypes';
import { PERMISSIONS } from '../../../core/keys/permissions';
import { Problem } from '../../../core/problems';
import type { Stores } from '../../../core/deps';
import { jobEventDeliveries } from '../../../core/webhooks/jobEventDeliveries';
import { hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { CONSOLE_PATHS } from '../consolePaths';
import { dateText, scrollingTable, seeOtherSaying, sendConsolePage, stackingTable, type TableCell } from '../consoleLayout';
import { mayChange } from '../pageAccess';
import { peopleNames } from '../../../core/talent/peopleNames';
import { eventPath } from './webhookDeliveriesPages';
import { eventDeliveryStatus, type EventDeliveryStatus } from '../../../core/webhooks/eventDeliveryStatus';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import type { ConsoleVisitor } from '../consoleVisitor';
import { deliveryTimeline, timelineHtml } from '../webhooks/deliveryTimeline';
import { cursorPager } from '../listPages';
import { actorNames, type ActorName } from '../actorNames';

/**
 * `/console/jobs` "Jobs" and `/console/jobs/{job_id}` "Job {job_id}": the contact-retrieval
 * jobs of the person's workspace (the same list GET /v1/contact-retrieval-jobs gives a key of
 * it), each job's counts, times, `job.completed` event with its delivery attempts, and its
 * result. Contact values appear only in a job's result, shown only to people holding
 * `jobs.v1:read`; no list carries them. "Cancel job" is the console operation
 * `console.jobs.cancel` (admins holding `jobs.v1:write`).
 */
const JOBS_PAGE = 25;
const RESULT_PAGE = 25;
const STATUSES: readonly JobStatus[] = ['running', ...FINAL_JOB_STATUSES];
const COUNT_LABELS: Record<(typeof COUNT_KEYS)[number], string> = {
  requested: 'Requested',
  delivered: 'Delivered',
  not_found: 'Not found',
  failed: 'Failed',
  reused: 'Reused',
  cancelled: 'Cancelled',
  pending: 'Pending',
};

export const jobPath = (jobId: string) => `${CONSOLE_PATHS.jobs}/${encodeURIComponent(jobId)}`;
/** The deliveries page of the webhooks area, filtered to one job. */
export const jobDeliveriesPath = (jobId: string) => `${CONSOLE_PATHS.webhooks}/deliveries?job_id=${encodeURIComponent(jobId)}`;

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

function statusFilter(status: string): SafeHtml {
  return html`<form method="get" action="${CONSOLE_PATHS.jobs}" class="filters">
    <div>
      <label for="status">Status</label>
      <select id="status" name="status">
        <option value="" ${status === '' ? html`selected` : ''}>Any status</option>
        ${STATUSES.map((s) => html`<option value="${s}" ${s === status ? html`selected` : ''}>${s}</option>`)}
      </select>
    </div>
    <div><button type="submit">Filter</button></div>
  </form>`;
}

/** A job as its list shows it: its view, who started it and whether "Send test event" made it. */
interface ListedJob {
  view: JobView;
  starter: ActorName | undefined;
  test: boolean;
}

function jobRow({ view: job, starter, test }: ListedJob): TableCell[] {
  return [
    {
      body: html`<a href="${jobPath(job.job_id)}"><span class="id">${job.job_id}</span></a
        >${test ? html`<br /><span class="note">Test event</span>` : ''}`,
      className: 'wrap',
    },
    { body: starterText(starter), className: 'wrap who' },
    { body: job.status },
    ...COUNT_KEYS.map((k) => ({ body: String(job.counts[k]) })),
    { body: dateText(job.created_at), className: 'when' },
  ];
}

function starterText(starter: ActorName | undefined): SafeHtml | string {
  if (!starter) return '—';
  return html`${starter.label}${starter.id && starter.id !== starter.label ? html`<br /><span class="id">${starter.id}</span>` : ''}`;
}

function figures(job: JobView, starter: ActorName | undefined): SafeHtml {
  const item = (term: string, value: SafeHtml | string | number) =>
    html`<div>
      <dt>${term}</dt>
      <dd>${value}</dd>
    </div>`;
  return html`<dl class="figures">
    ${item('Status', job.status)} ${item('Started by', starterText(starter))} ${COUNT_KEYS.map((k) => item(COUNT_LABELS[k], job.counts[k]))}
    ${item('Created', dateText(job.created_at))} ${item('Completed', dateText(job.completed_at))} ${item('Result expires', dateText(job.result_expires_at))}
    ${item('Fields', job.fields.join(', '))}
  </dl>`;
}

async function eventSection(stores: Stores, orgId: string, job: JobView): Promise<SafeHtml> {
  const event = await jobEventDeliveries(stores, orgId, job.job_id);
  const link = html`<p><a href="${jobDeliveriesPath(job.job_id)}">This job's webhook deliveries</a></p>`;
  if (!event) {
    return html`<p>
        ${job.status === 'running' ? 'The job.completed event is sent when the job finishes.' : 'No job.completed event was recorded for this job.'}
      </p>
      ${link}`;
  }
  const rows = event.attempts.map(
    (d) =>
      html`<tr>
        <td>${d.attempt}</td>
        <td>${d.replay === 0 ? 'Original' : `Replay ${d.replay}`}</td>
        <td>${d.status.replace('_', ' ')}</td>
        <td>${d.response_status ?? '—'}</td>
        <td>${d.duration_ms !== null ? `${d.duration_ms} ms` : '—'}</td>
        <td>${d.error_code ?? '—'}</td>
        <td>${dateText(d.attempted_at)}</td>
        <td>${dateText(d.next_attempt_at)}</td>
      </tr>`,
  );
  return html`<p>
      Event <a href="${eventPath(event.eventId)}"><code>${event.eventId}</code></a
      >: ${event.endpointId ? statusText(eventDeliveryStatus(event.attempts)) : 'no endpoint was active, nothing is sent'}.
    </p>
    ${
      rows.length
        ? html`${scrollingTable('Delivery attempts of the job.completed event', ['Attempt', 'Run', 'Status', 'Response', 'Duration', 'Error', 'Time', 'Next attempt'], rows)}
            <details>
              <summary>Attempts against the schedule</summary>
              ${timelineHtml(deliveryTimeline(event.attempts))}
            </details>`
        : event.endpointId
          ? html`<p>No attempt has been made yet.</p>`
          : ''
    }
    ${link}`;
}

async function resultSection(
  { purposeKeys, stores, now }: Pick<ConsoleDeps, 'purposeKeys' | 'stores' | 'now'>,
  visitor: ConsoleVisitor,
  job: JobView,
  cursor: string | undefined,
): Promise<SafeHtml> {
  if (!visitor.principal.scopes.includes(PERMISSIONS.jobsRead)) {
    return html`<p class="note">Reading a job's result needs the <code>${PERMISSIONS.jobsRead}</code> permission.</p>`;
  }
  let page: JobResultPage;
  try {
    page = await readJobResult(stores, purposeKeys, visitor.principal, job.job_id, { limit: RESULT_PAGE, cursor }, now());
  } catch (err) {
    if (err instanceof Problem && (err.code === 'result_set_expired' || err.code === 'result_gone')) return html`<p>${err.detail}</p>`;
    throw err;
  }
  if (page.items.length === 0) return html`<p>No person has been settled yet.</p>`;
  const names = await peopleNames(
    stores,
    page.items.map((item) => item.person_id),
  );
  const rows: TableCell[][] = page.items.map((item) => [
    { body: html`${names.get(item.person_id) ?? '—'}<br /><span class="id">${item.person_id}</span>`, className: 'wrap name' },
    { body: item.outcome },
    { body: item.contacts.emails.join(', ') || '—', className: 'wrap' },
    { body: item.contacts.phones.join(', ') || '—', className: 'wrap' },
    { body: item.receipt_id ? html`<span class="id">${item.receipt_id}</span>` : '—', className: 'wrap' },
    { body: item.reason ?? '—', className: 'wrap' },
  ]);
  return html`${stackingTable('Result', ['Person', 'Outcome', 'Emails', 'Phones', 'Receipt id', 'Reason'], rows)}
  ${cursorPager(
    'Pages of the result',
    cursor ? `${jobPath(job.job_id)}#result` : null,
    page.next_cursor ? `${jobPath(job.job_id)}?result_cursor=${encodeURIComponent(page.next_cursor)}#result` : null,
    'of the result',
  )}`;
}

/** The event's status in words, from its last attempt. */
function statusText(status: EventDeliveryStatus): string {
  const run = (replay: number) => (replay === 0 ? '' : ` by replay ${replay}`);
  switch (status.state) {
    case 'not_tried':
      return 'waiting for its first attempt';
    case 'delivered':
      return `delivered${run(status.replay)} at ${dateText(status.at)}`;
    case 'retrying':
      return status.nextAttemptAt ? `retrying: the next attempt is at ${dateText(status.nextAttemptAt)}` : 'being sent';
    case 'dead_lettered':
      return `dead-lettered${run(status.replay)} at ${dateText(status.at)} after its last attempt failed`;
  }
}

/** "Cancel job" for those who may (an admin holding `jobs.v1:write`); the road refuses anyone else's post all the same. */
function cancelControl(visitor: ConsoleVisitor, job: JobView): SafeHtml {
  if (!mayChange(visitor) || !visitor.principal.scopes.includes(PERMISSIONS.jobsWrite)) {
    return html`<p class="note">Cancelling a job needs an admin holding the <code>${PERMISSIONS.jobsWrite}</code> permission.</p>`;
  }
  return html`<form method="post" action="${jobPath(job.job_id)}/cancel">
    ${hidden('csrf_token', visitor.csrf)}
    <button type="submit" class="danger">Cancel job</button>
  </form>`;
}

/** A page of the workspace's jobs with the names of who started them (one read per kind of starter). */
async function listedJobs(
  stores: Stores,
  purposeKeys: ConsoleDeps['purposeKeys'],
  visitor: ConsoleVisitor,
  q: { status?: JobStatus; limit: number; cursor?: string },
): Promise<{ data: ListedJob[]; next_cursor: string | null }> {
  const found = await listJobRecords(stores, purposeKeys, visitor.principal, q);
  const [views, names] = await Promise.all([
    Promise.all(found.jobs.map((j) => jobView(stores, j))),
    actorNames(stores, visitor.user.orgId, found.jobs.map(jobStarter)),
  ]);
  const listed = (j: JobDoc, i: number): ListedJob => ({ view: views[i], starter: names.get(jobStarter(j)), test: j.test === true });
  return { data: found.jobs.map(listed), next_cursor: found.next_cursor };
}

export function mountJobsPages(pages: ConsolePages): void {
  pages.list(CONSOLE_PATHS.jobs, async (ctx, visitor, { stores, purposeKeys }) => {
    const status = (STATUSES as readonly string[]).includes(text(ctx.query.status)) ? (text(ctx.query.status) as JobStatus) : undefined;
    const cursor = text(ctx.query.cursor) || undefined;
    const list = await listedJobs(stores, purposeKeys, visitor, { status, limit: JOBS_PAGE, cursor });
    const here = (extra: Record<string, string>) => {
      const q = new URLSearchParams({ ...(status ? { status } : {}), ...extra }).toString();
      return `${CONSOLE_PATHS.jobs}${q ? `?${q}` : ''}`;
    };
    sendConsolePage(ctx, {
      title: 'Jobs',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.jobs,
      body: html`<p class="note">Contact-retrieval jobs of your workspace, newest first.</p>
        ${statusFilter(status ?? '')}
        ${
          list.data.length
            ? stackingTable('Jobs', ['Job id', 'Started by', 'Status', ...COUNT_KEYS.map((k) => COUNT_LABELS[k]), 'Created'], list.data.map(jobRow))
            : html`<p>No jobs${status ? html` with status ${status}` : ''}.</p>`
        }
        ${cursorPager('Pages of jobs', cursor ? here({}) : null, list.next_cursor ? here({ cursor: list.next_cursor }) : null)}`,
    });
  });

  pages.list(`${CONSOLE_PATHS.jobs}/:job_id`, async (ctx, visitor, deps) => {
    const record = await findOwnJob(deps.stores, visitor.principal, ctx.params.job_id);
    const [job, names] = await Promise.all([jobView(deps.stores, record), actorNames(deps.stores, visitor.user.orgId, [jobStarter(record)])]);
    const [event, result] = await Promise.all([
      eventSection(deps.stores, visitor.user.orgId, job),
      resultSection(deps, visitor, job, text(ctx.query.result_cursor) || undefined),
    ]);
    sendConsolePage(ctx, {
      title: `Job ${job.job_id}`,
      visitor: visitor.layout,
      current: CONSOLE_PATHS.jobs,
      body: html`${record.test ? html`<p class="note">A test job made by "Send test event": it has no people and cost no credits.</p>` : ''}
        ${figures(job, names.get(jobStarter(record)))} ${job.status === 'running' ? cancelControl(visitor, job) : ''}
        <h2>Webhook event</h2>
        ${event}
        <h2 id="result">Result</h2>
        ${result}
        <p><a href="${CONSOLE_PATHS.jobs}">All jobs</a></p>`,
    });
  });

  pages.post(`${CONSOLE_PATHS.jobs}/:job_id/cancel`, async (ctx, visitor, _form, { road }) => {
    const jobId = ctx.params.job_id;
    await road.run(ctx, visitor, 'console.jobs.cancel', { params: { job_id: jobId }, body: {} });
    seeOtherSaying(ctx, jobPath(jobId), 'Cancelling the job: it stops within seconds, and what it retrieved so far stays in its result.');
  });
}
