import { randomBytes } from 'node:crypto';
import { Agent, request, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import { createApp } from '../api/app';
import { loadConfig, setConfig } from '../core/config';
import { createApiKey } from '../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../core/keys/permissions';
import { setOrganizationRate } from '../core/limits/limitSettings';
import { leaseReleaser, releaseIdleLeaseBlocks } from '../core/limits/requestAdmission';
import { logger } from '../core/observability/logger';
import { connectStore, disconnectStore, ensureIndexes } from '../core/store/connection';
import { createOrganization } from '../core/tenancy/provisioning';
import { freePort, installServices, startFerretDb, type RunningService } from '../scripts/localServices';

/**
 * Authenticated GET /v1/whoami with every middleware (key lookup, limit settings, strict
 * window, in-flight lease) beside a bare Koa route, in the same process, in one run:
 *   npx tsx bench/api.ts            (starts its own FerretDB unless MONGODB_URI is set)
 * Env: BENCH_RATE (open-loop requests/s, default 1000), BENCH_SECONDS (default 5),
 * BENCH_CONCURRENCY (closed-loop connections, default 32).
 * The organization's rate and in-flight limit are raised by the operator command the CLI
 * uses (`limit rate`), so admission is exercised but does not refuse.
 */
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function summarize(latencies: number[], errors: number, elapsedMs: number): Result {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { rps: (latencies.length / elapsedMs) * 1000, p50: at(0.5), p99: at(0.99), errors };
}

/** Fixed offered rate (open loop): latency at a given load, unaffected by coordinated omission. */
async function openLoop(url: string, headers: Record<string, string>, rate: number, seconds: number): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const total = rate * seconds;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    // From the scheduled time when sent late (no coordinated omission), from the send when early.
    const from = Math.min(due, performance.now());
    pending.push(
      get(url, headers).then(
        (status) => {
          if (status === 200) latencies.push(performance.now() - from);
          else errors++;
        },
        () => void errors++,
      ),
    );
  }
  await Promise.all(pending);
  return summarize(latencies, errors, performance.now() - start);
}

/** As fast as it goes with N connections (closed loop): capacity. */
async function closedLoop(url: string, headers: Record<string, string>, concurrency: number, seconds: number): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const status = await get(url, headers).catch(() => 0);
        if (status === 200) latencies.push(performance.now() - t);
        else errors++;
      }
    }),
  );
  return summarize(latencies, errors, performance.now() - start);
}

function listen(app: Koa): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}` });
    });
  });
}

const fmt = (r: Result) => `${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   errors ${r.errors}`;

async function main() {
  let ferret: RunningService | undefined;
  let mongodbUri = process.env.MONGODB_URI;
  if (!mongodbUri) {
    await installServices({ temporal: false, ferretdb: true });
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
    ferret = await startFerretDb({ port, dataDir: join(dir, 'data'), logFile: join(dir, 'ferretdb.log') });
    mongodbUri = `mongodb://127.0.0.1:${port}/bench`;
  }
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MONGODB_URI: mongodbUri,
    SECRETS_ENCRYPTION_KEY: process.env.SECRETS_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
  });
  setConfig(config);
  logger.level = 'silent';
  await connectStore(config.mongodbUri);
  await ensureIndexes();

  const org = await createOrganization(`bench ${Date.now()}`, 0);
  const key = await createApiKey({ orgId: org.org_id, workspaceId: org.workspace_id, applicationId: org.application_id, scopes: [...ALL_PERMISSIONS], audience: config.apiAudience });
  await setOrganizationRate(org.org_id, { requestsPerSecond: 100_000, maxConcurrency: 2_000 });

  const full = await listen(createApp({ config, probes: { store: async () => true, temporal: async () => true } }));
  const bare = new Koa();
  const router = new Router();
  router.get('/v1/whoami', (ctx) => {
    ctx.body = { workspace_id: org.workspace_id, org_root: org.org_id, application_id: org.application_id, audience: config.apiAudience, scopes: [], key_id: key.key_id };
  });
  bare.use(router.routes());
  const plain = await listen(bare);

  const auth = { Authorization: `Bearer ${key.key}` };
  const fullUrl = `${full.url}/v1/whoami`;
  const bareUrl = `${plain.url}/v1/whoami`;
  if ((await get(fullUrl, auth)) !== 200) throw new Error('whoami did not answer 200');
  // Warm-up.
  await closedLoop(fullUrl, auth, 8, 1);
  await closedLoop(bareUrl, {}, 8, 1);

  const fullOpen = await openLoop(fullUrl, auth, RATE, SECONDS);
  const bareOpen = await openLoop(bareUrl, {}, RATE, SECONDS);
  const fullClosed = await closedLoop(fullUrl, auth, CONCURRENCY, SECONDS);
  const bareClosed = await closedLoop(bareUrl, {}, CONCURRENCY, SECONDS);

  process.stdout.write(`store: ${config.mongodbUri.replace(/\/\/[^@]*@/, '//')}\n`);
  process.stdout.write(`open loop at ${RATE} req/s for ${SECONDS} s (latency from scheduled send)\n`);
  process.stdout.write(`  whoami, all middleware  ${fmt(fullOpen)}\n`);
  process.stdout.write(`  bare Koa route          ${fmt(bareOpen)}\n`);
  process.stdout.write(`  (both keep up with the offered rate here: the ratio that matters is the capacity one below)\n`);
  process.stdout.write(`closed loop, ${CONCURRENCY} connections, ${SECONDS} s (capacity)\n`);
  process.stdout.write(`  whoami, all middleware  ${fmt(fullClosed)}\n`);
  process.stdout.write(`  bare Koa route          ${fmt(bareClosed)}\n`);
  const ratio = fullClosed.rps / bareClosed.rps;
  process.stdout.write(`  ratio (whoami / bare)   ${ratio.toFixed(2)}\n`);
  process.stdout.write(
    `target: capacity ratio >= 0.5 and whoami p99 <= 10 ms at ${RATE} req/s: ${ratio >= 0.5 && fullOpen.p99 <= 10 && fullOpen.errors === 0 ? 'met' : 'NOT met'}\n`,
  );

  full.server.close();
  plain.server.close();
  agent.destroy();
  releaseIdleLeaseBlocks();
  await leaseReleaser.drain();
  await disconnectStore();
  await ferret?.stop();
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
    process.exit(1);
  },
);
