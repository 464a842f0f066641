/**
 * Tool-server benchmark, measured from outside: `search_candidates` over MCP for both protocol
 * revisions `/tools` speaks (2025-11-25, served by the SDK 1.x server per request; 2026-07-28,
 * sessionless, served by the SDK 2.x server) beside the same search over the developer API,
 * against the API (`api/server.ts`) in its own process, driven by the load generator
 * (bench/loadGenerator.ts) in another, in the same run, against the same store.
 *
 *   npx tsx bench/mcp.ts     (starts FerretDB and Temporal via scripts/localStack unless MONGODB_URI is set)
 *
 * BENCH_ORGS (default 8) organizations, each caller its own organization's key / OAuth token;
 * BENCH_RATE (default 20 per organization) calls/s offered in total, open loop, evenly spread,
 * under the per-organization limits; BENCH_SECONDS (default 10) per surface; BENCH_PEOPLE
 * (default 5000) people seeded; BENCH_SEARCH_BODY overrides the search (JSON);
 * BENCH_OPERATION=whoami measures the free whoami instead (the cost of the MCP path itself).
 * Prints calls/s, p50/p99, non-2xx and the API's and store's CPU per 1,000 calls per surface,
 * and the targets: no non-2xx, and 2026-07-28 not slower than 2025-11-25 (p50 and p99 within 10 %
 * or 2 ms, whichever is larger: the noise of one run on a shared machine).
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { loadConfig } from '../core/config';
import { createClient } from '../core/oauth/clients';
import { closeDeps, openDeps } from '../core/deps';
import { seedPeople } from '../scripts/seeding/seedPeople';
import type { BenchFigure } from './benchResults';
import { benchOrganization, runBench, startBenchStack, type BenchStops } from './benchStack';
import { startApiProcess } from '../test/support/apiProcess';
import type { LoadResult, LoadTarget } from './loadGenerator';
import { runLoad } from './loadRun';
import { measureCpu } from './processCpu';

const ORGS = Number(process.env.BENCH_ORGS ?? 8);
const RATE = Number(process.env.BENCH_RATE ?? ORGS * 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 5000);
const WHOAMI = process.env.BENCH_OPERATION === 'whoami';
const SEARCH_BODY = JSON.parse(process.env.BENCH_SEARCH_BODY ?? '{"query":"engineer","page_size":20}') as Record<string, unknown>;
const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';

interface Caller {
  key: string;
  token: string;
}

type Surface = 'developer_api' | 'mcp_2025_11_25' | 'mcp_2026_07_28';

/** One call of the benchmarked operation on a surface, as the generator sends it (`$REQ`: a per-call number). */
function target(url: string, surface: Surface, c: Caller): LoadTarget {
  const tool = WHOAMI ? 'whoami' : 'search_candidates';
  if (surface === 'developer_api') {
    return WHOAMI
      ? { url: `${url}/v1/whoami`, headers: { authorization: `Bearer ${c.key}` } }
      : {
          url: `${url}/v1/candidates/search`,
          method: 'POST',
          headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json', 'idempotency-key': 'bench-$REQ' },
          body: JSON.stringify(SEARCH_BODY),
        };
  }
  const args = WHOAMI ? {} : { ...SEARCH_BODY, idempotency_key: `bench-${surface}-$REQ` };
  const headers: Record<string, string> = {
    authorization: `Bearer ${c.token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let params: Record<string, unknown> = { name: tool, arguments: args };
  if (surface === 'mcp_2025_11_25') {
    // The 1.x server is stateless: a tools/call needs no session, only the negotiated revision.
    headers['mcp-protocol-version'] = LEGACY;
  } else {
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = 'tools/call';
    headers['mcp-name'] = tool;
    params = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
  }
  return { url: `${url}/tools`, method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) };
}

/** Sends one call the way the generator would and fails unless it succeeded (a tool error is a 200 too). */
async function checkOnce(t: LoadTarget): Promise<void> {
  const tag = `check-${Math.random().toString(36).slice(2)}`;
  const res = await fetch(t.url, {
    method: t.method ?? 'GET',
    headers: Object.fromEntries(Object.entries(t.headers ?? {}).map(([k, v]) => [k, v.replace(/\$REQ/g, tag)])),
    body: t.body?.replace(/\$REQ/g, tag),
  });
  const text = await res.text();
  const failed = res.status >= 300 || /"isError"\s*:\s*true/.test(text) || /"error"\s*:\s*\{/.test(text);
  if (failed) throw new Error(`${t.url} answered ${res.status}: ${text.slice(0, 300)}`);
}

const perThousand = (cpu: number | undefined, n: number) => (cpu === undefined || !n ? 'n/a' : `${((cpu / n) * 1000).toFixed(3)} s`);
const ms = (v: number | null) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(1) : 'n/a');

async function measureAll(dir: string, stops: BenchStops): Promise<BenchFigure[]> {
  const { mongodbUri, temporalAddress, storePid } = await startBenchStack(dir, 'bench_mcp', stops);
  const env = {
    LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL ?? 'warn',
    // The benchmark measures speed, not the bulk-extraction quotas.
    SEARCH_PREVIEW_QUOTA_PER_DAY: '100000000',
    SEARCH_DISTINCT_QUERIES_PER_HOUR: '100000000',
    SEARCH_DELIVERY_QUOTA_PER_DAY: '100000000',
  };
  const config = loadConfig({
    ...process.env,
    ...env,
    NODE_ENV: 'test',
    MONGODB_URI: mongodbUri,
    TEMPORAL_ADDRESS: temporalAddress,
    SECRETS_ENCRYPTION_KEY: process.env.SECRETS_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
  });
  const deps = await openDeps(config);
  if (!WHOAMI) {
    process.stdout.write(`seeding ${PEOPLE} people…\n`);
    await seedPeople(deps.stores, { purposeKeys: deps.purposeKeys, count: PEOPLE });
  }
  const orgs: Array<{ key: string; clientId: string; clientSecret: string }> = [];
  for (let i = 0; i < ORGS; i++) {
    const org = await benchOrganization(deps.stores, `bench ${Date.now()} ${i}`, 100_000_000, config.apiAudience);
    const m2m = await createClient(deps.stores, { orgId: org.orgId, rateLimitPerMinute: 10_000_000 }, new Date(deps.now()));
    orgs.push({ key: org.key, clientId: m2m.client_id, clientSecret: m2m.client_secret });
  }
  await closeDeps(deps);

  const api = await startApiProcess(config, env);
  stops.push(() => api.stop());
  const url = api.url;
  // The resource a client asks a token for is the one the tool server's metadata names.
  const resource = ((await (await fetch(`${url}/.well-known/oauth-protected-resource/tools`)).json()) as { resource: string }).resource;
  const callers: Caller[] = [];
  for (const o of orgs) {
    const res = await fetch(`${url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: o.clientId, client_secret: o.clientSecret, scope: 'mcp:tools', resource }),
    });
    if (!res.ok) throw new Error(`token request answered ${res.status}: ${await res.text()}`);
    callers.push({ key: o.key, token: ((await res.json()) as { access_token: string }).access_token });
  }

  const surfaces: Surface[] = ['developer_api', 'mcp_2025_11_25', 'mcp_2026_07_28'];
  // Every surface answers a real result for every caller (search index loaded, JIT warm) before measuring.
  for (const s of surfaces) for (const c of callers) await checkOnce(target(url, s, c));
  for (const s of surfaces) await runLoad({ mode: 'open', targets: callers.map((c) => target(url, s, c)), ratePerSecond: RATE, seconds: 2 });

  const results = new Map<Surface, { load: LoadResult; cpu: Record<string, number | undefined> }>();
  for (const s of surfaces) {
    await new Promise((r) => setTimeout(r, 1000));
    const m = await measureCpu({ api: api.child.pid, store: storePid }, () =>
      runLoad({ mode: 'open', targets: callers.map((c) => target(url, s, c)), ratePerSecond: RATE, seconds: SECONDS }),
    );
    results.set(s, { load: m.result, cpu: m.cpuSeconds });
  }

  const w = (line: string) => process.stdout.write(line + '\n');
  w(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, store ${storePid && !process.env.MONGODB_URI ? 'FerretDB 1.x over SQLite (scripts/localStack)' : config.mongodbUri.replace(/\/\/[^@]*@/, '//')}`,
  );
  w(
    `${WHOAMI ? 'whoami' : 'search_candidates'}: ${RATE} calls/s offered (open loop) over ${ORGS} organizations for ${SECONDS} s per surface; API and generator in their own processes`,
  );
  for (const [s, r] of results) {
    const l = r.load;
    const statuses = Object.keys(l.statuses).length ? ` ${JSON.stringify(l.statuses)}` : '';
    w(
      `  ${s.padEnd(16)} ${l.requestsPerSecond.toFixed(0).padStart(5)} calls/s   p50 ${ms(l.p50Ms).padStart(6)} ms   p99 ${ms(l.p99Ms).padStart(7)} ms   non-2xx ${l.non2xx}${statuses}   errors ${l.errors}` +
        `   CPU per 1,000 calls: api ${perThousand(r.cpu.api, l.requests)}, store ${perThousand(r.cpu.store, l.requests)}`,
    );
  }
  const legacy = results.get('mcp_2025_11_25')!.load;
  const modern = results.get('mcp_2026_07_28')!.load;
  const within = (a: number, b: number) => a <= Math.max(b * 1.1, b + 2);
  const clean = [...results.values()].every((r) => r.load.non2xx === 0 && r.load.errors === 0 && r.load.requests > 0);
  w(`target: every call answered 2xx on every surface: ${clean ? 'met' : 'NOT met'}`);
  const notSlower = modern.requests > 0 && legacy.requests > 0 && within(modern.p50Ms, legacy.p50Ms) && within(modern.p99Ms, legacy.p99Ms);
  w(
    `target: 2026-07-28 (sessionless) not slower than 2025-11-25 (p50 ${ms(modern.p50Ms)} vs ${ms(legacy.p50Ms)} ms, p99 ${ms(modern.p99Ms)} vs ${ms(legacy.p99Ms)} ms): ${notSlower ? 'met' : 'NOT met'}`,
  );
  const operation = WHOAMI ? 'whoami' : 'search_candidates';
  return [
    ...[...results].map(([s, r]) => ({
      measure: `${operation} over ${s}, ${RATE} calls/s over ${ORGS} organizations`,
      figure: `p50 ${ms(r.load.p50Ms)} ms, p99 ${ms(r.load.p99Ms)} ms, non-2xx ${r.load.non2xx}; API CPU ${perThousand(r.cpu.api, r.load.requests)} per 1,000 calls`,
    })),
    { measure: 'every call answered 2xx on every surface', figure: clean ? 'yes' : 'no', target: 'all 2xx', met: clean },
    {
      measure: '2026-07-28 (sessionless) against 2025-11-25',
      figure: `p50 ${ms(modern.p50Ms)} vs ${ms(legacy.p50Ms)} ms, p99 ${ms(modern.p99Ms)} vs ${ms(legacy.p99Ms)} ms`,
      target: 'not slower (within 10 % or 2 ms)',
      met: notSlower,
    },
  ];
}

runBench('mcp', measureAll);
