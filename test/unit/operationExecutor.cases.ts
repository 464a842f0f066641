import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { availableTools, TOOL_DEFINITIONS, type ToolDefinition } from '../../api/mcp/toolCatalog';
import { createToolDispatcher } from '../../api/mcp/toolDispatch';
import type { AcquireAdmission, AdmissionHandle } from '../../core/limits/operationAdmission';
import { createOperationExecutor, operationPath, type OperationRequest } from '../../api/operations/executeOperation';
import { operationRegistry } from '../../api/operations/operationRegistry';
import { defineRoute, type RouteSpec } from '../../api/routeSpec';
import { v1Routes } from '../../api/routes/index';
import { UsageError } from '../../scripts/admin/command';
import { limitsCommands } from '../../scripts/admin/limitsCommands';
import { loadConfig } from '../../core/config';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { OPERATIONS, type OperationName } from '../../core/limits/limitTable';
import { Problem, retryLater } from '../../core/problems';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';

/** The operation executor with a tiny registry and an admission that only records what happens. */
const principal: KeyPrincipal = {
  keyId: 'key_1',
  familyId: 'kf_1',
  orgId: 'org_1',
  workspaceId: 'ws_1',
  applicationId: 'app_1',
  audience: 'developer-api',
  scopes: ['jobs.v1:read', 'jobs.v1:write'],
};

let events: string[];
const handled: unknown[] = [];

const routes: RouteSpec[] = [
  defineRoute({
    operation: 'contact_retrieval_jobs.get',
    method: 'GET',
    path: '/v1/contact-retrieval-jobs/:id',
    tag: 't',
    summary: 's',
    permission: 'jobs.v1:read',
    params: z.object({ id: z.string().startsWith('job_') }),
    query: z.object({ verbose: z.enum(['true', 'false']).optional() }).strict(),
    responses: { 200: { description: 'ok' } },
    handler: async ({ params, query }) => {
      events.push('handler');
      handled.push({ params, query });
      return { status: 200, body: { id: params.id, verbose: query.verbose ?? null } };
    },
  }),
  defineRoute({
    operation: 'contact_retrieval_jobs.cancel',
    method: 'POST',
    path: '/v1/contact-retrieval-jobs/:id/cancel',
    tag: 't',
    summary: 's',
    permission: 'jobs.v1:write',
    body: z.object({ reason: z.string().min(3) }).strict(),
    responses: { 202: { description: 'ok' } },
    handler: async ({ body }) => {
      events.push('handler');
      if (body.reason === 'explode') throw new Error('handler failed');
      return { status: 202, body: { cancelling: true } };
    },
  }),
  defineRoute({
    operation: 'webhook_endpoints.delete',
    method: 'DELETE',
    path: '/v1/webhook-endpoints/:id',
    tag: 't',
    summary: 's',
    permission: 'webhooks.v1:manage',
    responses: { 204: { description: 'gone' } },
    handler: async () => {
      events.push('handler');
      return { status: 204 };
    },
  }),
];

function recordingAdmission(refuse?: OperationName): AcquireAdmission {
  return async (p) => {
    events.push(`acquire ${p.orgId}`);
    const handle: AdmissionHandle = {
      admitOperation: async (operation) => {
        events.push(`admit ${operation}`);
        if (operation === refuse) throw retryLater('rate_limited', 'used up', 1);
      },
      rateLimitHeaders: () => ({}),
      release: () => {
        events.push('release');
      },
    };
    return handle;
  };
}

const config = loadConfig({ SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
const execute = createOperationExecutor(operationRegistry(routes), createDeps(config, { logger: testLogger() }), recordingAdmission());
const request = (extra: Partial<OperationRequest> = {}): OperationRequest => ({ principal, requestId: 'req_1', ...extra });

async function problemOf(run: Promise<unknown>): Promise<Problem> {
  const outcome = await run.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(outcome).toBeInstanceOf(Problem);
  return outcome as Problem;
}

beforeEach(() => {
  events = [];
  handled.length = 0;
});

describe('operation executor', () => {
  test('runs the operation with validated path and query, inside one admission acquired and released around it', async () => {
    const result = await execute('contact_retrieval_jobs.get', request({ params: { id: 'job_a/b' }, query: { verbose: 'true' } }));
    expect(result).toEqual({ status: 200, body: { id: 'job_a/b', verbose: 'true' } });
    expect(events).toEqual(['acquire org_1', 'admit contact_retrieval_jobs.get', 'handler', 'release']);
  });

  test('a credential in the body is 400 malformed_authorization before the permission check, and takes no admission', async () => {
    const narrow = { ...principal, scopes: [] };
    const problem = await problemOf(
      execute('contact_retrieval_jobs.cancel', request({ principal: narrow, params: { id: 'job_1' }, body: { reason: 'sk_live_ext_abcdefgh' } })),
    );
    expect(problem.code).toBe('malformed_authorization');
    expect(problem.status).toBe(400);
    expect(events).toEqual([]);
  });

  test('a missing permission is 403 before the operation admission, and the baseline admission is released', async () => {
    const problem = await problemOf(execute('webhook_endpoints.delete', request({ params: { id: 'we_1' } })));
    expect(problem.code).toBe('insufficient_scope');
    expect(events).toEqual(['acquire org_1', 'release']);
  });

  test("a refusal by the operation's admission stops before the body checks and the handler", async () => {
    const refusing = createOperationExecutor(
      operationRegistry(routes),
      createDeps(config, { logger: testLogger() }),
      recordingAdmission('contact_retrieval_jobs.cancel'),
    );
    const problem = await problemOf(refusing('contact_retrieval_jobs.cancel', request({ params: { id: 'job_1' }, body: { org_id: 'org_2' } })));
    expect(problem.code).toBe('rate_limited');
    expect(events).toEqual(['acquire org_1', 'admit contact_retrieval_jobs.cancel', 'release']);
  });

  test('tenant identifiers in the body, bad path or query parameters and an invalid body are 422 naming the field; the handler never runs', async () => {
    const tenant = await problemOf(
      execute('contact_retrieval_jobs.cancel', request({ params: { id: 'job_1' }, body: { reason: 'because', workspace_id: 'ws_2' } })),
    );
    expect(tenant.extensions.errors).toEqual([expect.objectContaining({ field: 'workspace_id' })]);
    const path = await problemOf(execute('contact_retrieval_jobs.get', request({ params: { id: 'nope' } })));
    expect(path.extensions.errors).toEqual([expect.objectContaining({ field: 'path.id' })]);
    const query = await problemOf(execute('contact_retrieval_jobs.get', request({ params: { id: 'job_1' }, query: { verbose: 'maybe' } })));
    expect(query.extensions.errors).toEqual([expect.objectContaining({ field: 'query.verbose' })]);
    const body = await problemOf(execute('contact_retrieval_jobs.cancel', request({ params: { id: 'job_1' }, body: { reason: 'x' } })));
    expect(body.extensions.errors).toEqual([expect.objectContaining({ field: 'reason' })]);
    const missing = await problemOf(execute('contact_retrieval_jobs.cancel', request({ params: { id: 'job_1' } })));
    expect(missing.extensions.errors).toEqual([{ field: 'body', message: 'a JSON body is required' }]);
    expect(events).not.toContain('handler');
    expect(events.filter((e) => e === 'release')).toHaveLength(5);
  });

  test('a handler that throws still releases the admission the executor acquired', async () => {
    await expect(execute('contact_retrieval_jobs.cancel', request({ params: { id: 'job_1' }, body: { reason: 'explode' } }))).rejects.toThrow('handler failed');
    expect(events).toEqual(['acquire org_1', 'admit contact_retrieval_jobs.cancel', 'handler', 'release']);
  });

  test('an admission the caller holds is used for the operation and left for the caller to release', async () => {
    const held = await recordingAdmission()(principal);
    events.length = 0;
    await execute('contact_retrieval_jobs.get', request({ params: { id: 'job_1' }, admission: held }));
    expect(events).toEqual(['admit contact_retrieval_jobs.get', 'handler']);
  });

  test('an operation missing from the registry is not_found and takes no admission', async () => {
    const problem = await problemOf(execute('whoami', request()));
    expect(problem.code).toBe('not_found');
    expect(events).toEqual([]);
  });

  test("an idempotency fingerprint covers the route's path with its parameters encoded", () => {
    expect(operationPath(routes[0], { id: 'job_a/b' })).toBe('/v1/contact-retrieval-jobs/job_a%2Fb');
  });
});

describe('operation names are a closed set', () => {
  test('every agreed operation is declared by exactly one /v1 route, and every route names one', () => {
    const registry = operationRegistry(v1Routes);
    expect([...registry.keys()].sort()).toEqual([...OPERATIONS].sort());
  });

  test('two routes declaring one operation are refused', () => {
    expect(() => operationRegistry([routes[0], { ...routes[0], path: '/v1/other' }])).toThrow(/declared by two routes/);
  });

  test('a misspelled operation name does not compile in a route or a tool', () => {
    const misspelledRoute = () =>
      defineRoute({
        // @ts-expect-error: not an operation name
        operation: 'candidate.search',
        method: 'GET',
        path: '/v1/x',
        tag: 't',
        summary: 's',
        responses: {},
        handler: async () => ({ status: 200 }),
      });
    // @ts-expect-error: not an operation name
    const misspelledTool: ToolDefinition = { name: 'x', operation: 'contact_retrieval_job.get', title: 't', description: 'd' };
    expect(typeof misspelledRoute).toBe('function');
    expect(TOOL_DEFINITIONS).not.toContainEqual(misspelledTool);
  });
});

describe('operation names from the command line', () => {
  test.each(['limit set', 'limit block', 'limit clear', 'limit show'])(
    '%s refuses a misspelled --operation as a usage error before touching the store',
    async (command) => {
      await expect(
        limitsCommands[command].run({ org: 'org_1', operation: 'who_am_i', 'requests-per-minute': '5' }, createDeps(config, { logger: testLogger() })),
      ).rejects.toThrow(UsageError);
    },
  );
});

describe('tool calls', () => {
  test('a tool call reaches the operation without any synthetic HTTP request', () => {
    const root = join(__dirname, '..', '..');
    for (const file of ['api/mcp/toolDispatch.ts', 'api/operations/executeOperation.ts', 'core/limits/operationAdmission.ts']) {
      const source = readFileSync(join(root, file), 'utf8');
      expect(source).not.toMatch(/from '(node:)?(http|net)'|IncomingMessage|ServerResponse|from 'koa'/);
    }
  });

  test('tool arguments become path parameters, query and body of the operation; an idempotency key is passed or generated', async () => {
    const seen: Array<{ operation: OperationName; request: OperationRequest }> = [];
    const dispatcher = createToolDispatcher(async (operation, req) => {
      seen.push({ operation, request: req });
      return { status: 200, body: '{"ok":true}' };
    }, testLogger());
    const tools = availableTools(v1Routes);
    const tool = (name: string) => tools.find((t) => t.definition.name === name)!;

    const read = await dispatcher.run(tool('get_contact_retrieval_job'), { id: 'job_1' }, principal, 'req_1');
    expect(read).toEqual({ ok: true, status: 200, body: { ok: true } });
    expect(seen[0]).toMatchObject({
      operation: 'contact_retrieval_jobs.get',
      request: { params: { id: 'job_1' }, query: {}, body: undefined, idempotencyKey: undefined, requestId: 'req_1' },
    });

    await dispatcher.run(tool('unlock_profile'), { person_id: 'per_1', idempotency_key: 'tool-key-000001' }, principal, 'req_2');
    expect(seen[1]).toMatchObject({ operation: 'profiles.unlock', request: { params: {}, body: { person_id: 'per_1' }, idempotencyKey: 'tool-key-000001' } });
    await dispatcher.run(tool('unlock_profile'), { person_id: 'per_1' }, principal, 'req_3');
    expect(seen[2].request.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.every((s) => s.request.admission === undefined)).toBe(true);

    const missing = await dispatcher.run(tool('get_contact_retrieval_job'), {}, principal, 'req_4');
    expect(missing).toMatchObject({ ok: false, status: 404, body: { code: 'not_found', request_id: 'req_4' } });
    expect(seen).toHaveLength(3);
  });
});
