import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTalentClient, ProblemError } from '../../clients/typescript/src';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';

/**
 * The TypeScript client's own rules: its generated types match the document, and Retry-After
 * is waited out with the same request (same Idempotency-Key and body). Waiting is shown against
 * a scripted HTTP server, because the service cannot be made to answer 429 once and then 200
 * on demand; test/integration/typescriptClient.cases.ts runs the client against the service.
 */
const root = join(__dirname, '..', '..');

test('the generated types are not stale (npm run client:generate rewrites them)', async () => {
  const run = await promisify(execFile)(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'scripts/generateClient.ts', '--check'], {
    cwd: root,
    timeout: 60_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
  expect(run).toEqual({ code: 0, stderr: expect.any(String) });
  expect(run.stderr).not.toMatch(/stale/);
}, 90_000);

describe('Retry-After', () => {
  let server: Server;
  let url: string;
  const seen: Array<{ key: string | undefined; body: string; at: number }> = [];
  let script: Array<{ status: number; retryAfter?: string; body: unknown }> = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ key: req.headers['idempotency-key'] as string | undefined, body, at: Date.now() });
        const next = script.shift() ?? { status: 500, body: {} };
        res.writeHead(next.status, {
          'Content-Type': next.status >= 400 ? 'application/problem+json' : 'application/json',
          ...(next.retryAfter ? { 'Retry-After': next.retryAfter } : {}),
        });
        res.end(JSON.stringify(next.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    seen.length = 0;
  });

  const rateLimited = { type: 'urn:service:developer-api:problem:rate_limited', title: 'Rate limited', status: 429, code: 'rate_limited' };
  const page = { search_id: 'srch_00000000', data: [], next_cursor: null, total_estimate: 0, credits_charged: 0, receipt_id: null };

  test('a 429 is waited out and the same paid request is sent again with the same Idempotency-Key', async () => {
    script = [
      { status: 429, retryAfter: '1', body: rateLimited },
      { status: 200, body: page },
    ];
    const client = createTalentClient({ apiKey: 'sk_test', baseUrl: url });
    const result = await client.searchCandidates({ query: 'rust' });
    expect(result.data).toEqual(page);
    expect(seen).toHaveLength(2);
    expect(seen[0].key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1].key).toBe(seen[0].key);
    expect(seen[1].body).toBe(seen[0].body);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  });

  test('a 503 whose Retry-After is longer than the client waits is thrown at once, typed', async () => {
    script = [{ status: 503, retryAfter: '120', body: { ...rateLimited, status: 503, code: 'dependency_unavailable', title: 'Dependency unavailable' } }];
    const client = createTalentClient({ apiKey: 'sk_test', baseUrl: url, maxRetryWaitSeconds: 10 });
    const err = await client.whoami().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProblemError);
    expect(err).toMatchObject({ status: 503, code: 'dependency_unavailable', retryAfterSeconds: 120 });
    expect(seen).toHaveLength(1);
  });

  test('retries stop after maxRetries', async () => {
    script = [
      { status: 429, retryAfter: '0', body: rateLimited },
      { status: 429, retryAfter: '0', body: rateLimited },
      { status: 429, retryAfter: '0', body: rateLimited },
    ];
    const client = createTalentClient({ apiKey: 'sk_test', baseUrl: url, maxRetries: 2 });
    expect(await client.whoami().catch((e: unknown) => e)).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(seen).toHaveLength(3);
  });
});
