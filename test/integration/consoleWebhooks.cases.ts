import { listAuditEvents } from '../../core/audit/auditLog';
import { newId } from '../../core/ids';
import { fileStores } from '../support/testStore';
import { takeReplaySlot } from '../../core/webhooks/replayAllowance';
import { recordAttempt } from '../../core/webhooks/webhookDeliveries';
import { endDeadLetterWorkflows } from '../support/deadLetters';
import { consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';

/**
 * The console's webhook pages over HTTP with a session cookie: the writes are the /v1 webhook
 * operations run on the console road (same core functions, same audit actions, as `user:<id>`);
 * members read but never write; another organization's ids are the console's 404; deliveries
 * filter by status, event and job and show the replay allowance.
 */
let srv: TestApi;
let receiver: HttpsReceiver;
let tenant: TestTenant;
let admin: ConsoleSession;
let member: ConsoleSession;
/** Test events' delivery workflows: no worker runs here, so they are ended at the close. */
const testEvents: string[] = [];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  srv = await startSignInApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile });
  tenant = await createTenant();
  // Without `webhooks.v1:manage`: in the console an admin's role is what allows the writes.
  admin = await consoleSession(srv, tenant, 'admin');
  member = await consoleSession(srv, tenant, 'member', ['webhooks.v1:manage']);
});
afterAll(async () => {
  if (srv) await endDeadLetterWorkflows(srv.deps.temporal, testEvents);
  await srv?.close();
  await receiver?.close();
});

const secretOf = (page: string) => /<code id="new-secret"[^>]*>([^<]+)<\/code>/.exec(page)?.[1];
const endpointsOf = (t: { workspaceId: string }) => fileStores().webhooks.endpoints.endpointsOfWorkspace(t.workspaceId);
const entries = (action: string) => listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action }).then((r) => r.data);

async function register(session: ConsoleSession, workspace: string, url: string) {
  return session.post('/console/webhooks', { workspace, url });
}

describe('Webhooks', () => {
  let endpointId = '';

  test('an admin registers an endpoint: its signing secret is shown once, no-store, and the change is audited as the person', async () => {
    const page = await admin.get('/console/webhooks');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Webhooks</h1>');
    expect(page.text).toContain('>Endpoint URL</label>');
    expect(page.text).not.toContain('>Workspace</label>'); // one workspace: no select

    const res = await register(admin, tenant.workspaceId, `${receiver.url}/hooks`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Your new signing secret</h1>');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const secret = secretOf(res.text);
    expect(secret).toMatch(/^whsec_/);
    const [stored] = await endpointsOf(tenant);
    endpointId = stored._id;
    expect(stored).toMatchObject({ url: `${receiver.url}/hooks`, state: 'active', orgId: tenant.orgId });
    expect(JSON.stringify(stored)).not.toContain(secret!);
    const [created] = await entries('webhook_endpoint.created');
    expect(created).toMatchObject({ actor: `user:${admin.userId}`, target: endpointId });
    expect(JSON.stringify(created)).not.toContain(secret!);

    const after = await admin.get('/console/webhooks');
    expect(after.text).toContain(`${receiver.url}/hooks`);
    expect(after.text).not.toContain(secret!);
    expect(after.text).not.toContain('>Register endpoint</button>'); // one active endpoint per workspace
    for (const button of ['Save URL', 'Disable', 'Retire', 'Rotate secret']) expect(after.text).toContain(`>${button}</button>`);
  });

  test('a member sees the endpoint without a form; a write they post is 403 "Not allowed" and changes nothing', async () => {
    const page = await member.get('/console/webhooks');
    expect(page.status).toBe(200);
    expect(page.text).toContain(endpointId);
    expect(page.text).not.toContain('>Disable</button>');
    const before = await endpointsOf(tenant);
    for (const [path, form] of [
      [`/console/webhooks/endpoints/${endpointId}`, { state: 'disabled' }],
      [`/console/webhooks/endpoints/${endpointId}/retire`, {}],
      [`/console/webhooks/endpoints/${endpointId}/rotate-secret`, {}],
      [`/console/webhooks/endpoints/${endpointId}/test-event`, {}],
      ['/console/webhooks', { workspace: tenant.workspaceId, url: `${receiver.url}/member` }],
    ] as const) {
      const res = await member.post(path, form);
      expect(res.status).toBe(403);
      expect(res.text).toContain('<h1>Not allowed</h1>');
    }
    expect(await endpointsOf(tenant)).toEqual(before);
    expect(await entries('webhook_endpoint.updated')).toHaveLength(0);
  });

  test('a form without the CSRF token changes nothing', async () => {
    const res = await admin.browser.request(`/console/webhooks/endpoints/${endpointId}`, { form: { state: 'disabled' } });
    expect(res.status).toBe(403);
    expect((await endpointsOf(tenant))[0].state).toBe('active');
  });

  test('disable, enable and re-point run updateEndpoint; a refused destination is "Not saved" and nothing changes', async () => {
    const disabled = await admin.post(`/console/webhooks/endpoints/${endpointId}`, { state: 'disabled' });
    expect(disabled.status).toBe(303);
    expect((await endpointsOf(tenant))[0].state).toBe('disabled');
    expect((await admin.get('/console/webhooks')).text).toContain('>Enable</button>');
    await admin.post(`/console/webhooks/endpoints/${endpointId}`, { state: 'active' });
    expect((await endpointsOf(tenant))[0].state).toBe('active');

    const refused = await admin.post(`/console/webhooks/endpoints/${endpointId}`, { url: 'http://example.com/hooks' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('<h1>Not saved</h1>');
    expect((await endpointsOf(tenant))[0].url).toBe(`${receiver.url}/hooks`);

    const moved = await admin.post(`/console/webhooks/endpoints/${endpointId}`, { url: `${receiver.url}/moved` });
    expect(moved.status).toBe(303);
    expect((await endpointsOf(tenant))[0].url).toBe(`${receiver.url}/moved`);
    const updates = await entries('webhook_endpoint.updated');
    expect(updates).toHaveLength(3);
    expect(updates[0]).toMatchObject({ actor: `user:${admin.userId}`, target: endpointId, after: expect.objectContaining({ url: `${receiver.url}/moved` }) });
  });

  test('"Send test event" emits a job.completed of a free test job to the active endpoint, audited, without sudo; not for a disabled endpoint', async () => {
    expect((await admin.get('/console/webhooks')).text).toContain('>Send test event</button>');
    const res = await admin.post(`/console/webhooks/endpoints/${endpointId}/test-event`);
    expect(res.status).toBe(303);
    const [sent] = await entries('webhook_endpoint.test_sent');
    expect(sent).toMatchObject({ actor: `user:${admin.userId}`, target: endpointId, after: expect.objectContaining({ endpoint_id: endpointId }) });
    const { event_id: eventId, job_id: jobId } = sent.after as { event_id: string; job_id: string };
    testEvents.push(eventId);
    expect(res.location).toBe(`/console/webhooks/events/${eventId}`);
    const event = await fileStores().webhooks.events.eventById(eventId);
    expect(event).toMatchObject({ jobId, endpointId, workspaceId: tenant.workspaceId, status: 'delivering' });
    expect(JSON.parse(event!.body)).toMatchObject({ type: 'job.completed', data: expect.objectContaining({ job_id: jobId, status: 'completed' }) });

    const page = await admin.get(res.location!);
    expect(page.text).toContain(`<h1>Event ${eventId}</h1>`);
    expect(page.text).toMatch(new RegExp(`role="status"[^>]*>[^<]*Test event sent: a signed job.completed of test job ${jobId}`));
    // The test job's page reads like any job's, with its event, and says what made it and who.
    const job = await admin.get(`/console/jobs/${jobId}`);
    expect(job.status).toBe(200);
    expect(job.text).toContain(`Event <a href="/console/webhooks/events/${eventId}"`);
    expect(job.text).toContain('A test job made by "Send test event"');
    expect(job.text).toMatch(new RegExp(`<dt>Started by</dt>\\s*<dd>${admin.email}<br /><span class="id">user:${admin.userId}</span>`));

    await admin.post(`/console/webhooks/endpoints/${endpointId}`, { state: 'disabled' });
    expect((await admin.get('/console/webhooks')).text).not.toContain('>Send test event</button>');
    const refused = await admin.post(`/console/webhooks/endpoints/${endpointId}/test-event`);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('enable this endpoint first');
    expect(await entries('webhook_endpoint.test_sent')).toHaveLength(1);
    await admin.post(`/console/webhooks/endpoints/${endpointId}`, { state: 'active' });
  });

  test('"Rotate secret" shows the successor once and the rotation window; a second rotation inside it is refused', async () => {
    const res = await admin.post(`/console/webhooks/endpoints/${endpointId}/rotate-secret`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Your new signing secret</h1>');
    expect(secretOf(res.text)).toMatch(/^whsec_/);
    expect((await entries('webhook_endpoint.secret_rotated'))[0]).toMatchObject({ actor: `user:${admin.userId}`, target: endpointId });
    expect((await admin.get('/console/webhooks')).text).toContain('Under way: the previous secret also signs until');
    const again = await admin.post(`/console/webhooks/endpoints/${endpointId}/rotate-secret`);
    expect(again.status).toBe(409);
    expect(again.text).toContain('24-hour overlap');
  });

  test("another organization's endpoint is the console's 404 page, as an absent one is", async () => {
    const other = await createTenant();
    const foreign = await fileStores().webhooks.endpoints.insertEndpoint({
      _id: newId('we'),
      orgId: other.orgId,
      workspaceId: other.workspaceId,
      url: 'https://example.com/x',
      state: 'active',
      activeSlot: other.workspaceId,
      secrets: [],
    });
    for (const id of [foreign._id, 'we_absent']) {
      const res = await admin.post(`/console/webhooks/endpoints/${id}`, { state: 'disabled' });
      expect(res.status).toBe(404);
      expect(res.text).toContain('<h1>Not found</h1>');
    }
    expect((await fileStores().webhooks.endpoints.endpointById(foreign._id))!.state).toBe('active');
    const foreignWorkspace = await register(admin, other.workspaceId, `${receiver.url}/foreign`);
    expect(foreignWorkspace.status).toBe(404);
  });

  test('with several workspaces the page has a "Workspace" select and registers in the one chosen', async () => {
    const second = { _id: newId('ws'), orgId: tenant.orgId, name: 'Second' };
    await fileStores().tenancy.insertWorkspace(second);
    const page = await admin.get(`/console/webhooks?workspace=${second._id}`);
    expect(page.text).toContain('<label for="workspace">Workspace</label>');
    expect(page.text).toContain('>Register endpoint</button>');
    const res = await register(admin, second._id, `${receiver.url}/second`);
    expect(res.status).toBe(200);
    expect(await endpointsOf({ workspaceId: second._id })).toHaveLength(1);
    expect((await endpointsOf(tenant))[0].url).toBe(`${receiver.url}/moved`);
  });

  test('"Retire" retires it: still shown, without forms', async () => {
    const res = await admin.post(`/console/webhooks/endpoints/${endpointId}/retire`);
    expect(res.status).toBe(303);
    expect((await endpointsOf(tenant))[0].state).toBe('retired');
    expect((await entries('webhook_endpoint.retired'))[0]).toMatchObject({ actor: `user:${admin.userId}`, target: endpointId });
    const page = await admin.get('/console/webhooks');
    expect(page.text).toContain('>retired</strong>');
    expect(page.text).not.toContain('>Rotate secret</button>');
    expect(page.text).toContain('>Register endpoint</button>');
  });
});

describe('Webhook deliveries', () => {
  const endpointId = newId('we');
  // Three events of nine attempts each: 27 rows, two pages of 25.
  const jobs = [newId('job'), newId('job'), newId('job')];
  const events = [newId('evt'), newId('evt'), newId('evt')];

  beforeAll(async () => {
    // An organization of its own: the Webhooks tests above spent the first one's burst of console
    // lists, and on a fast run these would meet its pace of two lists a second.
    tenant = await createTenant();
    admin = await consoleSession(srv, tenant, 'admin');
    member = await consoleSession(srv, tenant, 'member', ['webhooks.v1:manage']);
    const t0 = Date.now() - 3600_000;
    for (const [i, eventId] of events.entries()) {
      await fileStores().webhooks.events.insertEvent({
        _id: eventId,
        jobId: jobs[i],
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        endpointId,
        body: '{}',
        resultExpiresAt: null,
        status: 'dead_lettered',
      });
      for (let attempt = 1; attempt <= 9; attempt++) {
        await recordAttempt(fileStores(), {
          eventId,
          replay: 0,
          attempt,
          endpointId,
          orgId: tenant.orgId,
          workspaceId: tenant.workspaceId,
          jobId: jobs[i],
          status: attempt === 9 ? 'dead_lettered' : 'failed',
          responseStatus: 500,
          errorCode: 'http_status',
          durationMs: 12,
          scheduledAt: new Date(t0 + attempt * 1000),
          attemptedAt: new Date(t0 + attempt * 1000),
          nextAttemptAt: attempt === 9 ? null : new Date(t0 + (attempt + 1) * 1000),
        });
      }
    }
  });

  test('a job id alone (the Jobs pages link) shows that job\'s attempts, with "Replay" on the dead letter and the replays left', async () => {
    const res = await member.get(`/console/webhooks/deliveries?job_id=${jobs[0]}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>Webhook deliveries</h1>');
    expect(res.text.match(/<tr>/g)).toHaveLength(10); // the head and nine attempts
    expect(res.text).not.toContain(events[1]);
    expect(res.text).not.toContain('>Replay</button>'); // a member does not replay
    const adminPage = await admin.get(`/console/webhooks/deliveries?job_id=${jobs[0]}`);
    expect(adminPage.text.match(/>Replay<\/button>/g)).toHaveLength(1);
    expect(adminPage.text).toContain('Replays left this hour: 10');
    for (const label of ['Status', 'Event id', 'Job id']) expect(adminPage.text).toContain(`>${label}</label>`);
  });

  test('a dead letter whose event has been replayed since has no "Replay"', async () => {
    expect(await fileStores().webhooks.events.beginReplay(events[1], 0)).toBe(true);
    const res = await admin.get(`/console/webhooks/deliveries?job_id=${jobs[1]}`);
    expect(res.text).toContain('>dead lettered</span>');
    expect(res.text).not.toContain('>Replay</button>');
  });

  test('filters by status and event, and pages with "Next page"', async () => {
    const dead = await admin.get(`/console/webhooks/deliveries?status=dead_lettered`);
    expect(dead.text.match(/<tr>/g)).toHaveLength(4);
    const one = await admin.get(`/console/webhooks/deliveries?event_id=${events[1]}&status=failed`);
    expect(one.text.match(/<tr>/g)).toHaveLength(9);
    const all = await admin.get(`/console/webhooks/deliveries?workspace=${tenant.workspaceId}`);
    expect(all.text.match(/<tr>/g)).toHaveLength(26);
    const next = /href="([^"]+)">Next page</.exec(all.text)![1].replace(/&amp;/g, '&');
    const second = await admin.get(next);
    expect(second.text.match(/<tr>/g)).toHaveLength(3);
    expect(second.text).toContain('>First page</a>');
    expect(second.text).not.toContain('>Next page</a>');
  });

  test('beyond ten replays in the hour the page says when the next one is allowed, instead of "Replay"', async () => {
    for (let i = 0; i < 10; i++) expect((await takeReplaySlot(fileStores(), endpointId, new Date())).ok).toBe(true);
    const res = await admin.get(`/console/webhooks/deliveries?job_id=${jobs[0]}`);
    expect(res.text).toContain('Replays left this hour: 0');
    expect(res.text).toContain('The next replay is allowed at');
    expect(res.text).not.toContain('>Replay</button>');
  });

  test("an event's page lays its attempts against the schedule; another organization's event is 404", async () => {
    const res = await member.get(`/console/webhooks/events/${events[0]}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<h1>Event ${events[0]}</h1>`);
    expect(res.text.match(/<strong>Attempt \d<\/strong>/g)).toHaveLength(9);
    const other = await createTenant();
    const foreign = newId('evt');
    await fileStores().webhooks.events.insertEvent({
      _id: foreign,
      jobId: newId('job'),
      orgId: other.orgId,
      workspaceId: other.workspaceId,
      endpointId: null,
      body: '{}',
      resultExpiresAt: null,
      status: 'no_endpoint',
    });
    for (const id of [foreign, 'evt_absent']) expect((await admin.get(`/console/webhooks/events/${id}`)).status).toBe(404);
    // Its attempts, asked for by event id in this organization's workspace, are not listed.
    await recordAttempt(fileStores(), {
      eventId: foreign,
      replay: 0,
      attempt: 1,
      endpointId: newId('we'),
      orgId: other.orgId,
      workspaceId: other.workspaceId,
      jobId: 'job_foreign',
      status: 'failed',
      responseStatus: 500,
      errorCode: 'http_status',
      durationMs: 5,
      scheduledAt: new Date(),
      attemptedAt: new Date(),
      nextAttemptAt: new Date(),
    });
    const listed = await admin.get(`/console/webhooks/deliveries?workspace=${tenant.workspaceId}&event_id=${foreign}`);
    expect(listed.text).toContain('No delivery attempt matches.');
    expect(listed.text).not.toContain('job_foreign');
  });
});
