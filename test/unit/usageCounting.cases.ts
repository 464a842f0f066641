import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { availableTools } from '../../api/mcp/toolCatalog';
import { createToolDispatcher } from '../../api/mcp/toolDispatch';
import type { AcquireAdmission } from '../../core/limits/operationAdmission';
import { createOperationExecutor } from '../../api/operations/executeOperation';
import { operationRegistry } from '../../api/operations/operationRegistry';
import { defineRoute, type RouteSpec } from '../../api/routeSpec';
import { loadConfig } from '../../core/config';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import type { OperationName } from '../../core/limits/limitTable';
import { Problem, retryLater } from '../../core/problems';
import { UsageCounters } from '../../core/usage/usageCounters';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';

/** The executor counts every run of an operation, whichever road called it, by outcome and credits. */
const principal: KeyPrincipal = {
  keyId: 'key_1',
  familyId: 'kf_1',
  orgId: 'org_1',
  workspaceId: 'ws_1',
  applicationId: 'app_1',
  audience: 'developer-api',
  scopes: ['profiles.v1:unlock'],
};

let failWith: Error | undefined;
const routes: RouteSpec[] = [
  defineRoute({
    operation: 'profiles.unlock',
    method: 'POST',
    path: '/v1/profiles/unlock',
    tag: 't',
    summary: 's',
    permission: 'profiles.v1:unlock',
    // Not idempotent here: the executor's idempotency records live in the store, which a unit test has none of.
    paid: true,
    body: z.object({ person_id: z.string().min(3) }).strict(),
    responses: { 200: { description: 'ok' } },
    handler: async () => {
      if (failWith) throw failWith;
      return { status: 200, body: { unlocked: true }, creditsCharged: 5 };
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
    responses: { 200: { description: 'ok' } },
    handler: async () => ({ status: 200, body: {} }),
  }),
];

const admission =
  (refuse?: OperationName): AcquireAdmission =>
  async () => ({
    admitOperation: async (operation) => {
      if (operation === refuse) throw retryLater('rate_limited', 'used up', 1);
    },
    rateLimitHeaders: () => ({}),
    release: () => undefined,
  });

const config = loadConfig({ SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
const unlock = (n: number) => ({ principal, requestId: 'req', body: { person_id: 'per_1' }, idempotencyKey: `usage-count-${n}-0000` });

test('each run is counted by outcome class with the credits its answer charged; refusals charge nothing', async () => {
  const deps = createDeps(config, { logger: testLogger() });
  const usage = new UsageCounters(deps.stores, { logger: testLogger(), now: () => Date.parse('2026-11-25T10:00:30Z') });
  const execute = createOperationExecutor(operationRegistry(routes), deps, admission(), usage);
  await execute('profiles.unlock', unlock(1));
  await expect(execute('profiles.unlock', { ...unlock(2), body: { person_id: '' } })).rejects.toMatchObject({ status: 422 });
  await expect(execute('contact_retrieval_jobs.get', { principal, requestId: 'req', params: { job_id: 'job_1' } })).rejects.toMatchObject({ status: 403 });
  failWith = new Problem('insufficient_credits', 'This operation needs 5 credit(s).');
  await expect(execute('profiles.unlock', unlock(3))).rejects.toMatchObject({ status: 402 });
  failWith = new Error('boom');
  await expect(execute('profiles.unlock', unlock(4))).rejects.toThrow('boom');
  failWith = undefined;
  const refusing = createOperationExecutor(operationRegistry(routes), createDeps(config, { logger: testLogger() }), admission('profiles.unlock'), usage);
  await expect(refusing('profiles.unlock', unlock(5))).rejects.toMatchObject({ status: 429 });

  expect(usage.pendingMinutes()).toEqual([
    {
      orgId: 'org_1',
      start: new Date('2026-11-25T10:00:00Z'),
      ops: {
        'profiles.unlock': { success: 1, client_error: 2, rate_limited: 1, server_error: 1, credits: 5 },
        'contact_retrieval_jobs.get': { success: 0, client_error: 1, rate_limited: 0, server_error: 0, credits: 0 },
      },
    },
  ]);
});

test('a tool call runs through the same executor and is counted the same way', async () => {
  const deps = createDeps(config, { logger: testLogger() });
  const usage = new UsageCounters(deps.stores, { logger: testLogger(), now: () => Date.parse('2026-11-25T10:00:30Z') });
  const dispatcher = createToolDispatcher(createOperationExecutor(operationRegistry(routes), deps, admission(), usage), testLogger());
  const tool = availableTools(routes).find((t) => t.definition.name === 'unlock_profile')!;
  const outcome = await dispatcher.run(tool, { person_id: 'per_1', idempotency_key: 'tool-usage-000001' }, principal, 'req_tool');
  expect(outcome).toMatchObject({ ok: true, status: 200 });
  expect(usage.pendingMinutes()[0].ops['profiles.unlock']).toEqual({ success: 1, client_error: 0, rate_limited: 0, server_error: 0, credits: 5 });
});

test('without counters nothing is counted and the executor runs as before', async () => {
  const execute = createOperationExecutor(operationRegistry(routes), createDeps(config, { logger: testLogger() }), admission());
  await expect(execute('profiles.unlock', unlock(6))).resolves.toMatchObject({ status: 200, creditsCharged: 5 });
});
