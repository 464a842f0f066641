import { PERMISSIONS } from '../../core/keys/permissions';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { apiHonouringRateLimits as api, type HttpResponse } from '../support/http';
import { runAdminWith } from '../support/adminCli';
import { startTestApi, type TestApi } from '../support/testApi';
import type { AuditEventView } from '../../core/audit/auditLog';

// GET /v1/audit-events: the entries the operator CLI and the API's changes leave, read back over

let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
});
afterAll(async () => srv?.close());

type Entry = AuditEventView;

const admin = (...args: string[]) => runAdminWith(srv.deps, args);

async function readAll(key: string, query = ''): Promise<Entry[]> {
  const out: Entry[] = [];
  let cursor: string | null = null;
  do {
    const qs = new URLSearchParams(query);
    qs.set('limit', '2');
    if (cursor) qs.set('cursor', cursor);
    const res: HttpResponse = await api(srv.url, 'GET', `/v1/audit-events?${qs}`, { key });
    expect(res.status).toBe(200);
    expect(res.json.data.length).toBeLessThanOrEqual(2);
    out.push(...res.json.data);
    cursor = res.json.next_cursor;
  } while (cursor);
  return out;
}

let t: TestTenant;
let reader: string;
let endpointId: string;
let cliKey: { key: string; key_id: string };

beforeAll(async () => {
  t = await createTenant({ scopes: [PERMISSIONS.webhooksManage] });
  reader = (await addKey(t, [PERMISSIONS.auditRead])).key;

  const created = await api(srv.url, 'POST', '/v1/webhook-endpoints', { key: t.key, body: { url: 'https://localhost:9443/hooks/audit' } });
  expect(created.status).toBe(201);
  endpointId = created.json.endpoint.endpoint_id;
  expect((await api(srv.url, 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: t.key, body: { state: 'disabled' } })).status).toBe(200);
  expect((await api(srv.url, 'POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`, { key: t.key })).status).toBe(200);
  expect((await api(srv.url, 'DELETE', `/v1/webhook-endpoints/${endpointId}`, { key: t.key })).status).toBe(200);
  // A refused change records nothing.
  expect((await api(srv.url, 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { key: t.key, body: { state: 'active' } })).status).toBe(409);

  expect((await admin('credits', 'grant', '--org', t.orgId, '--amount', '500')).status).toBe(0);
  expect((await admin('budget', 'set', '--org', t.orgId, '--amount', '200')).status).toBe(0);
  const key = await admin('key', 'create', '--org', t.orgId, '--workspace', t.workspaceId, '--scopes', PERMISSIONS.jobsRead);
  expect(key.status).toBe(0);
  cliKey = key.json;
});

test('the API and the CLI changes appear newest first, with their actor, target and values, and no secret', async () => {
  const entries = await readAll(reader);
  expect(entries.map((e) => e.action)).toEqual([
    'key.created',
    'budget.set',
    'credits.granted',
    'webhook_endpoint.retired',
    'webhook_endpoint.secret_rotated',
    'webhook_endpoint.updated',
    'webhook_endpoint.created',
  ]);
  for (let i = 1; i < entries.length; i++) expect(entries[i - 1].time >= entries[i].time).toBe(true);
  const byAction = Object.fromEntries(entries.map((e) => [e.action, e]));

  for (const action of ['webhook_endpoint.created', 'webhook_endpoint.updated', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.retired']) {
    expect(byAction[action]).toMatchObject({ actor: `key:${t.keyId}`, target: endpointId, event_id: expect.stringMatching(/^aud_/) });
    expect(byAction[action].client_address).toMatch(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
  }
  expect(byAction['webhook_endpoint.updated'].before).toMatchObject({ state: 'active' });
  expect(byAction['webhook_endpoint.updated'].after).toMatchObject({ state: 'disabled' });
  expect(byAction['webhook_endpoint.retired'].after).toMatchObject({ state: 'retired' });

  expect(byAction['credits.granted']).toMatchObject({ actor: 'operator', target: t.orgId, after: { amount: 500, balance: 500 }, client_address: null });
  expect(byAction['budget.set']).toMatchObject({ actor: 'operator', before: { budget: null }, after: { budget: 200 } });
  expect(byAction['key.created']).toMatchObject({ actor: 'operator', target: cliKey.key_id, after: { key_id: cliKey.key_id, scopes: [PERMISSIONS.jobsRead] } });

  const text = JSON.stringify(entries);
  expect(text).not.toContain(cliKey.key);
  expect(text).not.toMatch(/whsec_|sk_live_[A-Za-z0-9]{20}/);
});

test('filters by action and actor; a cursor carries its filter', async () => {
  expect((await readAll(reader, 'actor=operator')).map((e) => e.action)).toEqual(['key.created', 'budget.set', 'credits.granted']);
  expect((await readAll(reader, `actor=key:${t.keyId}`)).every((e) => e.actor === `key:${t.keyId}`)).toBe(true);
  expect((await readAll(reader, 'action=webhook_endpoint.updated')).map((e) => e.target)).toEqual([endpointId]);
  const first = await api(srv.url, 'GET', '/v1/audit-events?limit=1', { key: reader });
  expect(first.json.next_cursor).toEqual(expect.any(String));
  const mixed = await api(srv.url, 'GET', `/v1/audit-events?actor=operator&cursor=${first.json.next_cursor}`, { key: reader });
  expect(mixed.status).toBe(400);
  expect(mixed.json.code).toBe('invalid_cursor');
  expect((await api(srv.url, 'GET', '/v1/audit-events?limit=101', { key: reader })).json.code).toBe('validation_failed');
  expect((await api(srv.url, 'GET', '/v1/audit-events?action=key.deleted', { key: reader })).json.code).toBe('validation_failed');
  expect((await api(srv.url, 'GET', '/v1/audit-events', { key: reader })).json.data).toHaveLength(7);
});

test("another organization's key sees none of these entries; a key without audit.v1:read is 403", async () => {
  const other = await createTenant({ scopes: [PERMISSIONS.auditRead] });
  const res = await api(srv.url, 'GET', '/v1/audit-events', { key: other.key });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ data: [], next_cursor: null });
  const denied = await api(srv.url, 'GET', '/v1/audit-events', { key: t.key });
  expect(denied.status).toBe(403);
  expect(denied.json).toMatchObject({ code: 'insufficient_scope', required_scope: 'audit.v1:read' });
});
