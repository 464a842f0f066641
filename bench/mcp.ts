/**
 * Tool-server benchmark: `search candidates` over MCP (Streamable HTTP, OAuth bearer) beside
 * the same search over the developer API (API key), in the same run, against the same store.
 *
 *   npx tsx bench/mcp.ts            (starts its own FerretDB unless MONGODB_URI is set)
 *
 * BENCH_DURATION_S (default 10) per surface, BENCH_CONCURRENCY (default 8) callers,
 * BENCH_ORGS (default 8): callers are spread over organizations so the 25 requests/s
 * per-organization limit (SPEC 8.1) does not cap the measurement; BENCH_PEOPLE (default 5000)
 * people are seeded; BENCH_SEARCH_BODY overrides the search body (JSON); BENCH_OPERATION=whoami
 * measures the free whoami instead, which isolates the cost of the MCP path itself.
 * Prints calls per second, p50/p95/p99 latency and outcomes per surface.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp } from '../api/app';
import { v1Routes } from '../api/routes/index';
import { loadConfig, setConfig } from '../core/config';
import { createApiKey } from '../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../core/keys/permissions';
import { createClient } from '../core/oauth/clients';
import { logger } from '../core/observability/logger';
import { connectStore, disconnectStore, ensureIndexes } from '../core/store/connection';
import { seedPeople } from '../core/talent/seedPeople';
import { createOrganization } from '../core/tenancy/provisioning';
import { freePort, installServices, startFerretDb, type RunningService } from '../scripts/localServices';

const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 10) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ORGS = Number(process.env.BENCH_ORGS ?? 8);
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 5000);
const SEARCH_BODY = JSON.parse(process.env.BENCH_SEARCH_BODY ?? '{"query":"engineer","page_size":20}') as Record<string, unknown>;

interface Caller {
  key: string;
  mcp: Client;
}

interface Stats {
  latencies: number[];
  outcomes: Map<string, number>;
  elapsedMs: number;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function run(callers: Caller[], once: (c: Caller) => Promise<string>): Promise<Stats> {
  const stats: Stats = { latencies: [], outcomes: new Map(), elapsedMs: 0 };
  const started = performance.now();
  const until = started + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, i) => {
      const caller = callers[i % callers.length];
      while (performance.now() < until) {
        const t0 = performance.now();
        let outcome: string;
        try {
          outcome = await once(caller);
        } catch (err) {
          outcome = `exception: ${(err as Error).message.slice(0, 60)}`;
        }
        stats.latencies.push(performance.now() - t0);
        stats.outcomes.set(outcome, (stats.outcomes.get(outcome) ?? 0) + 1);
      }
    }),
  );
  stats.elapsedMs = performance.now() - started;
  return stats;
}

function report(name: string, s: Stats): void {
  const sorted = [...s.latencies].sort((a, b) => a - b);
  const ok = s.outcomes.get('ok') ?? 0;
  const line = {
    surface: name,
    calls: sorted.length,
    calls_per_second: +(sorted.length / (s.elapsedMs / 1000)).toFixed(1),
    ok_per_second: +(ok / (s.elapsedMs / 1000)).toFixed(1),
    p50_ms: +percentile(sorted, 50).toFixed(1),
    p95_ms: +percentile(sorted, 95).toFixed(1),
    p99_ms: +percentile(sorted, 99).toFixed(1),
    outcomes: Object.fromEntries(s.outcomes),
  };
  process.stdout.write(JSON.stringify(line) + '\n');
}

async function main(): Promise<void> {
  logger.level = 'silent';
  let ferret: RunningService | undefined;
  let dir: string | undefined;
  let mongodbUri = process.env.MONGODB_URI;
  if (!mongodbUri) {
    await installServices({ temporal: false, ferretdb: true });
    dir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
    const port = await freePort();
    ferret = await startFerretDb({ port, dataDir: join(dir, 'ferretdb'), logFile: join(dir, 'ferretdb.log') });
    mongodbUri = `mongodb://127.0.0.1:${port}/bench_mcp`;
  }
  const port = await freePort();
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: String(port),
    MONGODB_URI: mongodbUri,
    SECRETS_ENCRYPTION_KEY: process.env.SECRETS_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
    // The benchmark measures speed, not the bulk-extraction quotas.
    SEARCH_PREVIEW_QUOTA_PER_DAY: '100000000',
    SEARCH_DISTINCT_QUERIES_PER_HOUR: '100000000',
    SEARCH_DELIVERY_QUOTA_PER_DAY: '100000000',
  });
  setConfig(config);
  await connectStore(config.mongodbUri);
  await ensureIndexes();
  const server = createApp({ config, probes: { store: async () => true, temporal: async () => true } }).listen(port, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const url = `http://127.0.0.1:${port}`;

  const hasSearch = process.env.BENCH_OPERATION !== 'whoami' && v1Routes.some((r) => r.operation === 'candidates.search');
  const op = hasSearch
    ? { tool: 'search_candidates', method: 'POST', path: '/v1/candidates/search', body: SEARCH_BODY, idempotent: true }
    : { tool: 'whoami', method: 'GET', path: '/v1/whoami', body: undefined, idempotent: false };
  if (!hasSearch) process.stdout.write('note: measuring whoami on both surfaces\n');

  process.stdout.write(`seeding ${PEOPLE} people…\n`);
  await seedPeople({ count: PEOPLE });
  const callers: Caller[] = [];
  for (let i = 0; i < ORGS; i++) {
    const org = await createOrganization(`bench ${i}`, 100_000_000);
    const key = await createApiKey({ orgId: org.org_id, workspaceId: org.workspace_id, applicationId: org.application_id, scopes: [...ALL_PERMISSIONS], audience: config.apiAudience });
    const m2m = await createClient({ orgId: org.org_id, rateLimitPerMinute: 10_000_000 });
    const tokenRes = await fetch(`${url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: m2m.client_id, client_secret: m2m.client_secret, scope: 'mcp:tools', resource: `${config.mcpUrl}/tools` }),
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    const mcp = new Client({ name: 'bench', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    callers.push({ key: key.key, mcp });
  }

  const apiOnce = async (c: Caller) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${c.key}` };
    if (op.body) headers['Content-Type'] = 'application/json';
    if (op.idempotent) headers['Idempotency-Key'] = randomUUID();
    const res = await fetch(`${url}${op.path}`, { method: op.method, headers, body: op.body ? JSON.stringify(op.body) : undefined });
    const text = await res.text();
    if (res.status < 300) return 'ok';
    try {
      return `${res.status} ${(JSON.parse(text) as { code?: string }).code}`;
    } catch {
      return String(res.status);
    }
  };
  const mcpOnce = async (c: Caller) => {
    const r = await c.mcp.callTool({ name: op.tool, arguments: op.body ? { ...op.body } : {} });
    return r.isError ? `tool error ${(r.structuredContent as { code?: string } | undefined)?.code}` : 'ok';
  };

  // Warm both paths (search index load, JIT), then measure each surface in turn.
  for (const c of callers) {
    await apiOnce(c);
    await mcpOnce(c);
  }
  process.stdout.write(`measuring ${op.tool}: ${DURATION_MS / 1000} s per surface, ${CONCURRENCY} concurrent callers over ${ORGS} organizations\n`);
  report('developer_api', await run(callers, apiOnce));
  report('mcp_tools', await run(callers, mcpOnce));

  for (const c of callers) await c.mcp.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await disconnectStore();
  await ferret?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
