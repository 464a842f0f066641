import { CONSOLE_ROOT } from '../../api/console/consolePaths';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Router from '@koa/router';
import { createApp } from '../../api/app';
import { publicOpenApi } from '../../api/reference/publicDocument';
import { OPERATION_EXAMPLES } from '../../api/reference/operationExamples';
import { SHARED_WORDING_CODES } from '../../api/reference/problemResponses';
import { v1Routes } from '../../api/routes/index';
import { loadConfig } from '../../core/config';
import { PROBLEM_CODES } from '../../core/problems';
import { createDeps } from '../../core/deps';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';
import { testLogger } from '../support/capturedLogs';

const root = join(__dirname, '..', '..');
const config = loadConfig({
  NODE_ENV: 'test',
  HOST: '127.0.0.1',
  PORT: '0',
  MONGODB_URI: 'mongodb://127.0.0.1:1/unused',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  METRICS_ENABLED: 'true',
  METRICS_TOKEN: 'm'.repeat(40),
});
type Operation = { responses: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }>; operationId: string };
const document = publicOpenApi(config) as {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation & { parameters: Array<{ name: string; in: string }> }>>;
};

/** HTTP methods an OpenAPI path item can hold. */
const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every (path, method) the app's routers answer, read from their layers; `*` for a route that takes any method. */
function appRoutes(): Array<{ path: string; method: string }> {
  const app = createApp({ deps: createDeps(config, { logger: testLogger() }), probes: { store: async () => true, temporal: async () => true } });
  const out: Array<{ path: string; method: string }> = [];
  for (const middleware of app.middleware as Array<{ router?: Router }>) {
    for (const layer of middleware.router?.stack ?? []) {
      if (layer.methods.length === 0) continue; // router.use() middleware, not a route
      const path = String(layer.path).replace(/:([A-Za-z_]+)/g, '{$1}');
      const methods = layer.methods.map((m) => m.toLowerCase()).filter((m) => m !== 'head');
      if (methods.length > OPENAPI_METHODS.length) out.push({ path, method: '*' });
      else for (const method of methods) out.push({ path, method });
    }
  }
  return out;
}

describe('the OpenAPI document', () => {
  test("passes Redocly's recommended rules with no error and no warning", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'scripts/lintOpenApi.ts'], { cwd: root, timeout: 60_000 }).catch(
      (err: { stdout: string }) => err,
    );
    expect(JSON.parse(stdout)).toEqual([]);
  }, 90_000);

  test('documents every route of the app, and nothing the app does not route', () => {
    // The console is pages for people, described in docs/console.md, not part of the API reference.
    const routes = appRoutes().filter((r) => r.path !== CONSOLE_ROOT && !r.path.startsWith(`${CONSOLE_ROOT}/`));
    expect(routes.length).toBeGreaterThan(40);
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => OPENAPI_METHODS.includes(k))
        .map((method) => ({ path, method })),
    );
    const undocumented = routes.filter((r) => !documented.some((d) => d.path === r.path && (r.method === '*' || d.method === r.method)));
    const unrouted = documented.filter((d) => !routes.some((r) => r.path === d.path && (r.method === '*' || r.method === d.method)));
    expect({ undocumented, unrouted }).toEqual({ undocumented: [], unrouted: [] });
  });

  test('covers the token endpoint, both discovery documents, the JWKS, the probes and the tool server', () => {
    for (const path of [
      '/api/oauth/token',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/tools',
      '/api/oauth/jwks',
      '/healthz',
      '/readyz',
      '/tools',
      '/docs',
    ]) {
      expect(Object.keys(document.paths)).toContain(path);
    }
    const token = document.paths['/api/oauth/token'].post as unknown as {
      requestBody: { content: Record<string, { schema: { oneOf: Array<{ properties: { grant_type: { const: string } } }> } }> };
    };
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    const grants = token.requestBody.content['application/x-www-form-urlencoded'].schema.oneOf.map((g) => g.properties.grant_type.const);
    expect(grants).toEqual(['client_credentials', 'authorization_code', 'refresh_token']);
  });

  test('describes the job.completed webhook with its Standard Webhooks headers and body', () => {
    const event = document.webhooks['job.completed'].post;
    expect(event.parameters.filter((p) => p.in === 'header').map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(JSON.stringify(event)).toContain('#/components/schemas/JobCompletedEvent');
  });

  test('every /v1 error response names the problem codes it can carry, each with its own status', () => {
    let named = 0;
    for (const [path, item] of Object.entries(document.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const op of Object.values(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (!/^[45]\d\d$/.test(status)) continue;
          const schema = response.content?.['application/problem+json']?.schema as { allOf: Array<{ properties?: { code?: { enum: string[] } } }> } | undefined;
          const codes = schema?.allOf?.[1]?.properties?.code?.enum;
          expect({ path, status, codes: codes?.length ?? 0 }).toEqual({ path, status, codes: expect.any(Number) });
          expect(codes!.length).toBeGreaterThan(0);
          for (const code of codes!)
            expect({ code, status: PROBLEM_CODES[code as keyof typeof PROBLEM_CODES].status }).toEqual({ code, status: Number(status) });
          named += codes!.length;
        }
      }
    }
    expect(named).toBeGreaterThan(100);
    // Route-specific codes from the declarations come through: a paid, idempotent, cursor-paged search.
    const search = JSON.stringify(document.paths['/v1/candidates/search'].post.responses);
    for (const code of [
      'preview_quota_exceeded',
      'distinct_query_cap',
      'idempotency_key_reused',
      'invalid_cursor',
      'cursor_expired',
      'insufficient_credits',
      'insufficient_scope',
    ])
      expect(search).toContain(code);
  });

  test('every request and response of every operation carries an example', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item) as Array<[string, Operation & { requestBody?: { content: Record<string, { example?: unknown }> } }]>) {
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
          if (media.example === undefined) missing.push(`${method} ${path} request ${type}`);
        for (const [status, response] of Object.entries(op.responses)) {
          for (const [type, media] of Object.entries(response.content ?? {}))
            if ((media as { example?: unknown }).example === undefined) missing.push(`${method} ${path} ${status} ${type}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  test("each /v1 example is accepted by the route's own schema: requests as input, answers as output", () => {
    let checked = 0;
    for (const spec of v1Routes) {
      const example = OPERATION_EXAMPLES[spec.operation];
      if (spec.body) {
        expect({ operation: spec.operation, result: spec.body.safeParse(example.request).error?.issues ?? 'ok' }).toEqual({
          operation: spec.operation,
          result: 'ok',
        });
        checked += 1;
      } else expect({ operation: spec.operation, request: example.request }).toEqual({ operation: spec.operation, request: undefined });
      for (const [status, doc] of Object.entries(spec.responses)) {
        if (!doc.schema) continue;
        const answer = example.responses[Number(status)];
        expect({ operation: spec.operation, status, result: doc.schema.safeParse(answer).error?.issues ?? 'ok' }).toEqual({
          operation: spec.operation,
          status,
          result: 'ok',
        });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(25);
  });

  test("examples use the service's id shapes and amounts, and no integer is bounded by the safe-integer range", () => {
    // The /v1 schemas and examples: only the tool server's JSON-RPC ids are really bounded so.
    const v1 = JSON.stringify(Object.entries(document.paths).filter(([p]) => p.startsWith('/v1/')));
    expect(v1).not.toMatch(/9007199254740991/);
    const search = document.paths['/v1/candidates/search'].post as unknown as {
      responses: Record<string, { content: Record<string, { example: Record<string, unknown> }> }>;
    };
    const page = search.responses['200'].content['application/json'].example;
    expect(page.search_id).toMatch(/^srch_[0-9A-Za-z]{22}$/);
    expect(page.credits_charged).toBe(1);
    const whoami = (
      document.paths['/v1/whoami'].get as unknown as { responses: Record<string, { content: Record<string, { example: Record<string, string> }> }> }
    ).responses['200'].content['application/json'].example;
    expect(whoami.org_root).toMatch(/^org_[0-9A-Za-z]{22}$/);
    expect(whoami.key_id).toMatch(/^key_[0-9A-Za-z]{22}$/);
    // Numbered ids: audit entries in their organization, delivery records in their workspace.
    const v1Text = JSON.stringify(document.paths['/v1/audit-events']) + JSON.stringify(document.paths['/v1/webhook-deliveries']);
    expect(v1Text.match(/"aud_[^"]*"/g)?.every((id) => /^"aud_[0-9A-Za-z]{22}_\d+"$/.test(id))).toBe(true);
    expect(v1Text.match(/"dlv_[^"]*"/g)?.every((id) => /^"dlv_[0-9A-Za-z]{22}_\d+"$/.test(id))).toBe(true);
  });

  test('each error description names each of its codes once', () => {
    const namedTwice: Array<{ path: string; status: string; code: string }> = [];
    const codes = Object.keys(PROBLEM_CODES).map((code) => ({ code, word: new RegExp(`\\b${code}\\b`, 'g') }));
    for (const [path, item] of Object.entries(document.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const op of Object.values(item)) {
        for (const [status, response] of Object.entries(op.responses) as Array<[string, { description?: string }]>) {
          if (!/^[45]\d\d$/.test(status) || !response.description) continue;
          for (const { code, word } of codes) if ((response.description.match(word)?.length ?? 0) > 1) namedTwice.push({ path, status, code });
        }
      }
    }
    expect(namedTwice).toEqual([]);
  });

  /** Every /v1 operation of the document with its route declaration. */
  function v1Operations(): Array<{ spec: (typeof v1Routes)[number]; op: V1Operation }> {
    return v1Routes.map((spec) => ({
      spec,
      op: document.paths[spec.path.replace(/:([A-Za-z_]+)/g, '{$1}')][spec.method.toLowerCase()] as unknown as V1Operation,
    }));
  }
  type ProblemExample = { code: string; detail: string; errors?: Array<{ field: string }>; required_scope?: string };
  type V1Operation = Operation & {
    parameters: Array<{ name?: string; in?: string; example?: string | number }>;
    'x-codeSamples': Array<{ lang: string; label: string; source: string }>;
    responses: Record<string, { content?: Record<string, { example?: ProblemExample }> }>;
  };
  const problemExamplesOf = (op: V1Operation) =>
    Object.entries(op.responses).flatMap(([status, r]) => {
      const example = r.content?.['application/problem+json']?.example;
      return example && /^[45]\d\d$/.test(status) ? [{ ...example, status }] : [];
    });

  test("each operation's error examples are its own: no two operations share one, bar the codes worded alike for every operation", () => {
    const byDetail = new Map<string, string[]>();
    for (const { spec, op } of v1Operations()) {
      for (const example of problemExamplesOf(op)) {
        // A not_found names the resource (the same for each operation on it); a 422 of a path
        // parameter alone is worded by its schema, alike for every id of one shape.
        if (SHARED_WORDING_CODES.has(example.code as never) || example.code === 'not_found') continue;
        if (example.code === 'validation_failed' && example.errors!.every((e) => e.field.startsWith('path.'))) continue;
        byDetail.set(example.detail, [...(byDetail.get(example.detail) ?? []), spec.operation]);
      }
    }
    expect(byDetail.size).toBeGreaterThan(60);
    expect([...byDetail.entries()].filter(([, ops]) => ops.length > 1)).toEqual([]);
  });

  test('a 403 example names the operation and its permission; a 422 example names fields the operation takes', () => {
    for (const { spec, op } of v1Operations()) {
      const examples = problemExamplesOf(op);
      const forbidden = examples.find((e) => e.status === '403');
      if (spec.permission) {
        expect({ op: spec.operation, detail: forbidden?.detail }).toEqual({ op: spec.operation, detail: expect.stringContaining(`\`${spec.permission}\``) });
        expect(forbidden!.detail).toContain(`\`${spec.operation}\``);
        expect(forbidden!.required_scope).toBe(spec.permission);
      } else expect(forbidden).toBeUndefined();
      const invalid = examples.find((e) => e.code === 'validation_failed');
      if (!invalid) continue;
      const taken = op.parameters.flatMap((p) => (p.name ? [`${p.in === 'path' ? 'path' : 'query'}.${p.name}`] : []));
      const body = JSON.stringify((op as unknown as { requestBody?: unknown }).requestBody ?? {});
      for (const { field } of invalid.errors!)
        expect({ op: spec.operation, field, taken: taken.includes(field) || body.includes(`"${field.split('.')[0]}"`) }).toEqual({
          op: spec.operation,
          field,
          taken: true,
        });
    }
  });

  test('every operation that can answer 422 shows its own validation failure', () => {
    for (const { spec, op } of v1Operations()) {
      const codes = JSON.stringify(op.responses['422'] ?? {});
      if (!codes.includes('validation_failed')) continue;
      expect({ op: spec.operation, shown: op.responses['422'].content?.['application/problem+json']?.example?.code }).toEqual({
        op: spec.operation,
        shown: expect.stringMatching(/^(validation_failed|webhook_url_not_allowed)$/),
      });
      expect({ op: spec.operation, invalid: OPERATION_EXAMPLES[spec.operation].invalid !== undefined }).toEqual({ op: spec.operation, invalid: true });
    }
  });

  test('every operation has request samples, curl and the TypeScript client, sending its own example', () => {
    for (const { spec, op } of v1Operations()) {
      const samples = op['x-codeSamples'];
      expect({ op: spec.operation, labels: samples.map((s) => s.label) }).toEqual({ op: spec.operation, labels: ['curl', 'TypeScript client'] });
      const [curl, client] = samples.map((s) => s.source);
      const example = OPERATION_EXAMPLES[spec.operation];
      const path = spec.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => example.params![name]);
      expect(curl).toContain(`${config.baseUrl}${path}`);
      expect(curl).toContain('Authorization: Bearer $API_KEY');
      if (spec.idempotent) expect(curl).toContain('Idempotency-Key: ');
      if (example.request !== undefined) expect(curl).toContain(`-d '${JSON.stringify(example.request)}'`);
      expect(client).toContain('createTalentClient');
      for (const value of Object.values(example.params ?? {})) expect(client).toContain(value);
    }
  });

  test('every path and query parameter has an example, which its schema accepts', () => {
    for (const { spec, op } of v1Operations()) {
      for (const p of op.parameters.filter((p) => p.in === 'path' || p.in === 'query'))
        expect({ op: spec.operation, name: p.name, example: p.example }).toEqual({ op: spec.operation, name: p.name, example: expect.anything() });
      const example = OPERATION_EXAMPLES[spec.operation];
      if (spec.params) expect({ op: spec.operation, ok: spec.params.safeParse(example.params).success }).toEqual({ op: spec.operation, ok: true });
      if (spec.query) expect({ op: spec.operation, ok: spec.query.safeParse(example.query).success }).toEqual({ op: spec.operation, ok: true });
    }
  });

  test('usage takes from and to as a date or a date-time, stated by format, with an example', () => {
    const usage = document.paths['/v1/usage'].get as unknown as V1Operation;
    const from = usage.parameters.find((p) => p.name === 'from') as { schema: Record<string, unknown>; example: string };
    expect(from.schema.anyOf).toEqual([{ format: 'date' }, { format: 'date-time' }]);
    expect(JSON.stringify(from.schema)).not.toContain('pattern');
    expect(from.example).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test('no example anywhere is a schema placeholder: no "string" value, no made-up 2019 time, and the event has its sample', () => {
    const placeholders: string[] = [];
    const walk = (node: unknown, at: string, inExample: boolean): void => {
      if (Array.isArray(node)) node.forEach((v, i) => walk(v, `${at}[${i}]`, inExample));
      else if (node && typeof node === 'object')
        for (const [k, v] of Object.entries(node)) walk(v, `${at}.${k}`, inExample || k === 'example' || k === 'examples');
      else if (inExample && typeof node === 'string' && (node === 'string' || /^2019-/.test(node))) placeholders.push(`${at}: ${node}`);
    };
    walk(document, '$', false);
    expect(placeholders).toEqual([]);
    const event = document.webhooks['job.completed'].post as unknown as { requestBody: { content: Record<string, { example?: { id: string } }> } };
    expect(event.requestBody.content['application/json'].example?.id).toMatch(/^evt_[0-9A-Za-z]{22}$/);
  });

  test('introduction headings are plain text (Redoc shows them in the side menu)', () => {
    const intro = (document as unknown as { info: { description: string } }).info.description;
    for (const heading of intro.split('\n').filter((l) => /^#{1,6} /.test(l))) expect(heading).not.toMatch(/[`<>]/);
  });
});
