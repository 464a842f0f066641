import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listAuditEvents } from '../../core/audit/auditLog';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { generateSigningSecret, signedHeaders } from '../../core/webhooks/signPayload';
import { ensureWebhookCertificate, type WebhookCertificateFiles } from '../../scripts/devWebhookCertificate';
import { adminEnv, runAdmin, runAdminWith } from '../support/adminCli';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';
import { eventually } from '../support/eventually';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';

/**
 * `webhook listen` end to end: a real API and worker trusting the loopback certificate (as
 * `npm run dev` sets them up), the operator CLI as a process registering itself as the
 * workspace's endpoint, `webhook trigger` making a free job, and the delivery printed,
 * verified, and forwarded to a local URL.
 */
const ROOT = join(__dirname, '..', '..');
let dir: string;
let tls: WebhookCertificateFiles;
let srv: TestApi;
let worker: TestWorker;
let tenant: TestTenant;
let forwardTarget: Server;
const forwarded: Array<{ headers: Record<string, unknown>; body: string }> = [];
/** The endpoint and secret the first session registered, for the next sessions. */
let firstSession: { endpointId: string; secret: string } | undefined;

/** Posts a delivery signed with `secret` to a listener, as the worker would; answers the status. */
function deliver(listenUrl: string, secret: string, eventId: string): Promise<number> {
  const body = JSON.stringify({ type: 'job.completed', id: eventId });
  const headers = signedHeaders([secret], eventId, new Date(), body);
  return new Promise<number>((resolve, reject) => {
    const req = httpsRequest(listenUrl, { method: 'POST', ca: readFileSync(tls.certFile), headers: { ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'webhook-listen-'));
  tls = await ensureWebhookCertificate(dir);
  srv = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128', WEBHOOK_EXTRA_CA_FILE: tls.certFile });
  worker = await startTestWorker(srv.config);
  tenant = await createTenant({ credits: 5 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 60 });
  forwardTarget = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      forwarded.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => forwardTarget.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await worker?.stop();
  await srv?.close();
  await new Promise((resolve) => forwardTarget?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI's environment as `npm run dev` leaves it: the certificate files, no other dev settings file. */
const cliEnv = (extra: Record<string, string> = {}) => ({
  DEV_ENV_FILE: join(dir, 'no-dev.env'),
  DEV_WEBHOOK_CERT_FILE: tls.certFile,
  DEV_WEBHOOK_KEY_FILE: tls.keyFile,
  ...extra,
});

function startListen(args: string[]): { child: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'scripts/admin.ts', 'webhook', 'listen', ...args], {
    cwd: ROOT,
    env: adminEnv(srv.config, cliEnv()),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

test('listen registers a local receiver, a free triggered job is delivered, printed verified and forwarded; Ctrl-C disables the endpoint', async () => {
  const forwardUrl = `http://127.0.0.1:${(forwardTarget.address() as AddressInfo).port}/hooks`;
  const listen = startListen(['--workspace', tenant.workspaceId, '--forward-to', forwardUrl]);
  try {
    await eventually('listen to be ready', async () => listen.out().includes('listening on https://127.0.0.1:') || listen.child.exitCode !== null, {
      timeoutMs: 60_000,
    });
    expect(listen.out()).toMatch(new RegExp(`endpoint (we_\\S+) registered for workspace ${tenant.workspaceId} at https://127\\.0\\.0\\.1:\\d+/webhooks`));
    const endpointId = /endpoint (we_\S+) registered/.exec(listen.out())![1];

    // A delivery signed with another secret is printed, and said to be unverified.
    const listenUrl = /listening on (https:\/\/\S+?),/.exec(listen.out())![1];
    const forged = signedHeaders([generateSigningSecret()], 'evt_forgedDelivery0001', new Date(), '{"type":"job.completed"}');
    const answer = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(listenUrl, { method: 'POST', ca: readFileSync(tls.certFile), headers: { ...forged } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{"type":"job.completed"}');
    });
    expect(answer).toBe(204);
    await eventually('the forged delivery to be printed', async () => listen.out().includes('evt_forgedDelivery0001'));
    expect(listen.out()).toContain("evt_forgedDelivery0001 attempt ? NOT verified (no signature matches the endpoint's secret)");

    const triggered = await runAdminWith(srv.deps, ['webhook', 'trigger', '--workspace', tenant.workspaceId]);
    expect({ status: triggered.status, stderr: triggered.stderr }).toEqual({ status: 0, stderr: '' });
    const jobId = triggered.json.job_id as string;
    expect(jobId).toMatch(/^job_/);

    await eventually('the delivery to be printed', async () => listen.out().includes(`"job_id":"${jobId}"`), { timeoutMs: 60_000, intervalMs: 250 });
    const printed = listen.out();
    expect(printed).toMatch(
      new RegExp(`evt_\\S+ attempt 1 verified → ${forwardUrl.replace(/[/.]/g, '\\$&')} 204\\n  \\{.*"type":"job\\.completed".*"job_id":"${jobId}"`),
    );
    // Forwarded unchanged: the body and the signature headers a receiver verifies.
    expect(forwarded).toHaveLength(2);
    expect(forwarded[1].body).toContain(`"job_id":"${jobId}"`);
    expect(forwarded[1].headers['webhook-signature']).toMatch(/^v1,/);

    // Free: the job's person had no contact record; nothing was charged.
    const job = await eventually('the job to finish', async () => {
      const r = await api(srv.url, 'GET', `/v1/contact-retrieval-jobs/${jobId}`, { key: tenant.key });
      return r.json.status !== 'running' ? r.json : undefined;
    });
    expect(job.counts).toMatchObject({ requested: 1, not_found: 1, delivered: 0 });
    expect((await api(srv.url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);

    listen.child.kill('SIGINT');
    expect(await listen.exited).toBe(0);
    const summary = JSON.parse(listen.out().trim().split('\n').pop()!);
    expect(summary).toMatchObject({
      endpoint_id: endpointId,
      deliveries: 2,
      restored: `endpoint ${endpointId} disabled (kept with its secret for the next webhook listen)`,
    });
    expect((await srv.deps.stores.webhooks.endpoints.endpointById(endpointId))!.state).toBe('disabled');
    firstSession = { endpointId, secret: /its signing secret \(.*\): (\S+)/.exec(listen.out())![1] };
    // The operator registered and disabled an endpoint: both are in the organization's audit log.
    const entries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { actor: 'operator' })).data.filter(
      (e) => e.target === endpointId,
    );
    expect(entries.map((e) => e.action)).toEqual(['webhook_endpoint.updated', 'webhook_endpoint.created']);
  } finally {
    if (listen.child.exitCode === null) listen.child.kill('SIGKILL');
  }
});

test('the next session enables the same endpoint with the same secret and forwards to a plain http://localhost receiver; --new-secret rotates it', async () => {
  expect(firstSession).toBeDefined();
  const { endpointId, secret } = firstSession!;
  const localhostUrl = `http://localhost:${(forwardTarget.address() as AddressInfo).port}/plain`;
  const before = forwarded.length;
  const again = startListen(['--workspace', tenant.workspaceId, '--forward-to', localhostUrl]);
  try {
    await eventually('listen to be ready', async () => again.out().includes('listening on') || again.child.exitCode !== null, { timeoutMs: 60_000 });
    expect(again.out()).toContain(`endpoint ${endpointId} of workspace ${tenant.workspaceId} enabled at https://127.0.0.1:`);
    expect(again.out()).not.toContain(secret);
    expect((await srv.deps.stores.webhooks.endpoints.endpointById(endpointId))!.state).toBe('active');
    const listenUrl = /listening on (https:\/\/\S+?),/.exec(again.out())![1];
    // Signed with the first session's secret: the receiver's configuration still holds.
    expect(await deliver(listenUrl, secret, 'evt_secondSession00001')).toBe(204);
    await eventually('the delivery to be printed', async () => again.out().includes('evt_secondSession00001'));
    expect(again.out()).toContain(`evt_secondSession00001 attempt ? verified → ${localhostUrl} 204`);
    expect(forwarded.slice(before).map((d) => JSON.parse(d.body).id)).toEqual(['evt_secondSession00001']);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  } finally {
    if (again.child.exitCode === null) again.child.kill('SIGKILL');
  }

  const rotating = startListen(['--workspace', tenant.workspaceId, '--new-secret']);
  try {
    await eventually('listen to be ready', async () => rotating.out().includes('listening on') || rotating.child.exitCode !== null, { timeoutMs: 60_000 });
    const fresh = /new signing secret \(.*\): (\S+)/.exec(rotating.out())![1];
    expect(fresh).not.toBe(secret);
    expect(rotating.out()).toContain(`endpoint ${endpointId} of workspace ${tenant.workspaceId} enabled at`);
    const listenUrl = /listening on (https:\/\/\S+?);/.exec(rotating.out())![1];
    expect(await deliver(listenUrl, fresh, 'evt_rotatedSecret00001')).toBe(200);
    expect(await deliver(listenUrl, secret, 'evt_previousSecret0001')).toBe(200);
    await eventually('both deliveries to be printed', async () => rotating.out().includes('evt_previousSecret0001'));
    expect(rotating.out()).toContain('evt_rotatedSecret00001 attempt ? verified');
    // The previous secret verifies through its overlap, as for any rotation.
    expect(rotating.out()).toContain('evt_previousSecret0001 attempt ? verified');
    rotating.child.kill('SIGINT');
    expect(await rotating.exited).toBe(0);
  } finally {
    if (rotating.child.exitCode === null) rotating.child.kill('SIGKILL');
  }
});

test('an existing endpoint is re-pointed while listening (its own secret verifies) and put back after', async () => {
  const other = await createTenant();
  const registered = await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: other.key, body: { url: 'https://127.0.0.1:19999/elsewhere' } });
  expect(registered.status).toBe(201);
  const listen = startListen(['--workspace', other.workspaceId]);
  try {
    await eventually('listen to be ready', async () => listen.out().includes('listening on') || listen.child.exitCode !== null, { timeoutMs: 60_000 });
    expect(listen.out()).toContain(
      `endpoint ${registered.json.endpoint.endpoint_id} of workspace ${other.workspaceId} re-pointed from https://127.0.0.1:19999/elsewhere`,
    );
    expect(listen.out()).not.toContain(registered.json.secret);
    listen.child.kill('SIGINT');
    expect(await listen.exited).toBe(0);
    expect((await srv.deps.stores.webhooks.endpoints.endpointById(registered.json.endpoint.endpoint_id))!).toMatchObject({
      url: 'https://127.0.0.1:19999/elsewhere',
      state: 'active',
    });
    const entries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, other.orgId, { action: 'webhook_endpoint.updated' })).data;
    expect(entries.map((e) => [e.actor, e.after?.url])).toEqual([
      ['operator', 'https://127.0.0.1:19999/elsewhere'],
      ['operator', expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/webhooks$/)],
    ]);
  } finally {
    if (listen.child.exitCode === null) listen.child.kill('SIGKILL');
  }
});

test('listen and trigger are never available with NODE_ENV=production', () => {
  for (const command of ['listen', 'trigger']) {
    const r = runAdmin(srv.config, ['webhook', command, '--workspace', tenant.workspaceId], cliEnv({ NODE_ENV: 'production' }));
    expect({ status: r.status, stdout: r.stdout }).toEqual({ status: 2, stdout: '' });
    expect(r.stderr).toBe(`usage error: webhook ${command} is for development only (NODE_ENV=production)\n`);
  }
});
