import { z } from 'zod';
import { availableTools } from '../../api/mcp/toolCatalog';
import { createToolDispatcher, type ToolDispatcher } from '../../api/mcp/toolDispatch';
import { createOperationExecutor } from '../../api/operations/executeOperation';
import { operationRegistry } from '../../api/operations/operationRegistry';
import { defineRoute, type RouteSpec } from '../../api/routeSpec';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { heldLeases } from '../../core/limits/requestAdmission';
import { retryLater } from '../../core/problems';
import { startTestApi, type TestApi } from '../support/testApi';
import { createDeps, type Deps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';

/**
 * The tool → route bridge, with stand-in route specs under the real operation names: path
 * parameters, query, body members, Idempotency-Key, permission, validation and problems.
 */
const seen: Array<Record<string, unknown>> = [];
/** In-flight leases of the organization while a read runs. */
const leasesDuringCall: number[] = [];

const routes: RouteSpec[] = [
  defineRoute({
    operation: 'profiles.unlock',
    method: 'POST',
    path: '/v1/profiles/unlock',
    tag: 't',
    summary: 's',
    permission: 'profiles.v1:unlock',
    idempotent: true,
    body: z.object({ person_id: z.string().min(3) }).strict(),
    responses: { 200: { description: 'ok' } },
    handler: async ({ body, idempotencyKey, principal }) => {
      seen.push({ body, idempotencyKey, org: principal.orgId });
      return { status: 200, body: { person_id: body.person_id, unlocked: true } };
    },
  }),
  defineRoute({
    operation: 'contact_retrieval_jobs.get',
    method: 'GET',
    path: '/v1/contact-retrieval-jobs/:job_id',
    tag: 't',
    summary: 's',
    permission: 'jobs.v1:read',
    params: z.object({ job_id: z.string() }),
    query: z.object({ verbose: z.enum(['true', 'false']).optional() }),
    responses: { 200: { description: 'ok' } },
    handler: async ({ params, query, principal }) => {
      leasesDuringCall.push((await heldLeases(srv.deps.stores.limits, principal.orgId)).length);
      return { status: 200, body: { job_id: params.job_id, verbose: query.verbose ?? null } };
    },
  }),
  defineRoute({
    operation: 'contact_retrieval_jobs.cancel',
    method: 'POST',
    path: '/v1/contact-retrieval-jobs/:job_id/cancel',
    tag: 't',
    summary: 's',
    permission: 'jobs.v1:write',
    params: z.object({ job_id: z.string() }),
    responses: { 202: { description: 'ok' } },
    handler: async () => {
      throw retryLater('contact_job_concurrency_cap', 'two jobs running', 30);
    },
  }),
];

let srv: TestApi;
let deps: Deps;
const tools = availableTools(routes);
let dispatcher: ToolDispatcher;
const tool = (name: string) => tools.find((t) => t.definition.name === name)!;
const principal: KeyPrincipal = {
  keyId: 'cli_test',
  familyId: 'cli_test',
  orgId: 'org_test',
  workspaceId: 'ws_test',
  applicationId: 'app_test',
  audience: 'x',
  scopes: ['profiles.v1:unlock', 'jobs.v1:read'],
};

beforeAll(async () => {
  srv = await startTestApi();
  deps = createDeps(srv.config, { logger: testLogger(), store: srv.deps.store });
  dispatcher = createToolDispatcher(createOperationExecutor(operationRegistry(routes), deps), deps.logger);
});
afterAll(async () => srv.close());

test('only tools whose operations are registered are offered; input schemas merge path, query and body', () => {
  expect(tools.map((t) => t.definition.name)).toEqual(['unlock_profile', 'get_contact_retrieval_job', 'cancel_contact_retrieval_job']);
  expect(tool('unlock_profile').inputSchema).toMatchObject({
    type: 'object',
    required: ['person_id'],
    properties: { person_id: { type: 'string' }, idempotency_key: { type: 'string' } },
  });
  expect(tool('get_contact_retrieval_job').inputSchema).toMatchObject({ required: ['job_id'], properties: { job_id: {}, verbose: {} } });
});

test('body members and idempotency_key reach the route; a key is generated when absent', async () => {
  seen.length = 0;
  const given = await dispatcher.run(tool('unlock_profile'), { person_id: 'per_123', idempotency_key: 'tool-key-000001' }, principal, 'req_1');
  expect(given).toEqual({ ok: true, status: 200, body: { person_id: 'per_123', unlocked: true } });
  await dispatcher.run(tool('unlock_profile'), { person_id: 'per_456' }, principal, 'req_2');
  expect(seen[0]).toEqual({ body: { person_id: 'per_123' }, idempotencyKey: 'tool-key-000001', org: 'org_test' });
  expect(seen[1].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
});

test('the route validation answers: 422 validation_failed naming the field', async () => {
  const out = await dispatcher.run(tool('unlock_profile'), { person_id: 'x' }, principal, 'req_3');
  expect(out.ok).toBe(false);
  expect(out.body).toMatchObject({ code: 'validation_failed', status: 422, errors: [{ field: 'person_id' }] });
});

test('tenant identifiers in tool input are refused like in the developer API', async () => {
  const out = await dispatcher.run(tool('unlock_profile'), { person_id: 'per_123', org_id: 'org_other' }, principal, 'req_4');
  expect(out.body).toMatchObject({ code: 'validation_failed' });
});

test('path and query arguments', async () => {
  const out = await dispatcher.run(tool('get_contact_retrieval_job'), { job_id: 'job_a/b', verbose: 'true' }, principal, 'req_5');
  expect(out).toEqual({ ok: true, status: 200, body: { job_id: 'job_a/b', verbose: 'true' } });
});

test('a missing permission is insufficient_scope; a problem keeps its code and Retry-After', async () => {
  const denied = await dispatcher.run(tool('cancel_contact_retrieval_job'), { job_id: 'job_1' }, principal, 'req_6');
  expect(denied.body).toMatchObject({ code: 'insufficient_scope', status: 403 });
  const limited = await dispatcher.run(tool('cancel_contact_retrieval_job'), { job_id: 'job_1' }, { ...principal, scopes: ['jobs.v1:write'] }, 'req_7');
  expect(limited.body).toMatchObject({ code: 'contact_job_concurrency_cap', status: 429, retry_after: 30 });
});

test('a tool call holds an in-flight lease while it runs and gives it back when it returns, with no HTTP response to close', async () => {
  await deps.admission.leaseReleaser.drain();
  expect(await heldLeases(srv.deps.stores.limits, principal.orgId)).toHaveLength(0);
  leasesDuringCall.length = 0;
  const out = await dispatcher.run(tool('get_contact_retrieval_job'), { job_id: 'job_lease' }, principal, 'req_8');
  expect(out.ok).toBe(true);
  expect(leasesDuringCall).toEqual([1]);
  await deps.admission.leaseReleaser.drain();
  expect(await heldLeases(srv.deps.stores.limits, principal.orgId)).toHaveLength(0);
});

test('a credential in tool input is malformed_authorization even without the permission (not hidden behind insufficient_scope)', async () => {
  const out = await dispatcher.run(tool('unlock_profile'), { person_id: 'sk_live_ext_' + 'A'.repeat(40) }, { ...principal, scopes: [] }, 'req_9');
  expect(out.body).toMatchObject({ code: 'malformed_authorization', status: 400 });
  expect(JSON.stringify(out.body)).not.toContain('A'.repeat(40));
});
