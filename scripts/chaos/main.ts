/**
 * `npm run chaos`: load plus repeated faults against the local services of `npm run dev`, then
 * an exact ledger. On demand only (not part of `npm test`); loopback only; bounded by
 * --duration, --drain and --max-jobs; stops everything it started. Exit code 1 when a ledger
 * line does not balance.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config';
import { logger } from '../../core/observability/logger';
import { createStores, type Stores } from '../../core/deps';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';
import { openStore, type StoreHandle } from '../../core/store/connection';
import { personIdFor } from '../seeding/generator';
import { seedPeople } from '../seeding/seedPeople';
import { BUILT_IN_SOURCE_ID } from '../../core/talent/sources';
import { startContactProviderServer } from '../../test/support/contactProviderServer';
import { startHttpsReceiver } from '../../test/support/httpsReceiver';
import { ApiClient } from './apiClient';
import { runFaults } from './faults';
import { outstanding, printLedger, reconcile } from './ledger';
import { startLoad } from './load';
import { parseChaosOptions } from './options';
import { ChaosServices } from './services';
import { provisionTenant } from './tenants';

const PEOPLE = 400;
const SEED = 'chaos';
const PROVIDER_TOKEN = 'chaos-provider-token';
const t0 = Date.now();
const say = (m: string) => process.stderr.write(`[chaos +${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LEASE_TTL_SECONDS = 15;

/** Receivers answer 503 during these windows (seconds after the load starts): "failing for a while". */
const FAILING_PATHS = new Set(['/t1']);
const FAILING_WINDOWS: Array<[number, number]> = [
  [20, 40],
  [90, 110],
];

async function main(): Promise<number> {
  const opts = parseChaosOptions(process.argv.slice(2));
  logger.level = 'silent';
  const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
  say(`run folder ${dir}; load ${opts.durationSeconds} s, drain up to ${opts.drainSeconds} s, at most ${opts.maxJobs} jobs`);
  const receiver = await startHttpsReceiver();
  const provider = await startContactProviderServer({ token: PROVIDER_TOKEN, latencyMs: 600 });
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    TEMPORAL_TASK_QUEUE: 'chaos',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_EXTRA_CA_FILE: receiver.caFile,
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    CONTACT_PROVIDER_TOKEN: PROVIDER_TOKEN,
    CONTACT_JOB_CHUNK_SIZE: '5',
    CONTACT_JOB_CONCURRENCY: '2',
    // Short, so the run can see a killed replica's leases expire.
    LIMITS_LEASE_TTL_SECONDS: String(LEASE_TTL_SECONDS),
  };
  const services = await ChaosServices.allocate(dir, env, say);
  env.MONGODB_URI = services.mongodbUri;
  env.TEMPORAL_ADDRESS = services.temporalAddress;
  const config = loadConfig({ ...env, LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0' });
  // Round robin over the replicas answering now (one, or two while the second runs).
  let turn = 0;
  const api = new ApiClient(() => {
    const urls = services.apiUrls();
    return urls[turn++ % urls.length];
  });
  let exitCode = 1;
  let store: StoreHandle | undefined;
  try {
    say('starting FerretDB and the Temporal dev server');
    await services.startStore();
    await services.startTemporal();
    store = await openStore(services.mongodbUri, config.store);
    const stores: Stores = createStores(store.connection);
    await store.ensureIndexes();
    const purposeKeys = purposeKeysOf(config);
    await seedPeople(stores, { purposeKeys, count: PEOPLE, seed: SEED });
    // Only people of the built-in source: jobs and unlocks refuse the others (422, 404).
    const seeded = Array.from({ length: PEOPLE }, (_, i) => personIdFor(purposeKeys, SEED, i));
    const sources = await stores.talent.sourcesOfPeople(seeded);
    const personIds = seeded.filter((id) => sources.get(id) === BUILT_IN_SOURCE_ID);
    say('starting the API and a worker');
    const firstWorker = services.startWorker();
    await services.startApi(config);
    await firstWorker.ready;

    const tenants = [];
    for (let i = 0; i <= opts.tenants; i++) tenants.push(await provisionTenant(stores, api, receiver.url, i, i === 2 ? 60 : 100_000));
    const [burst, ...loaders] = tenants;
    // Creates jobs only while Temporal is down: its own organization, so the running-job cap of the load's never refuses them.
    const temporalProbe = await provisionTenant(stores, api, receiver.url, opts.tenants + 1, 100_000);
    tenants.push(temporalProbe);
    const loadStart = Date.now();
    const refusedByReceiver = new Set<number>();
    let hold: { ms: number; seen: (id: string) => void } | undefined;
    receiver.respond((req, index) => {
      const s = (Date.now() - loadStart) / 1000;
      const failing = FAILING_PATHS.has(req.path) && FAILING_WINDOWS.some(([a, b]) => s >= a && s < b);
      if (!failing && hold) {
        const h = hold;
        hold = undefined;
        h.seen(String(req.headers['webhook-id'] ?? ''));
        return { status: 200, body: 'ok', delayMs: h.ms };
      }
      if (!failing) return { status: 200, body: 'ok' };
      refusedByReceiver.add(index);
      return { status: 503, body: 'down for a while' };
    });
    let deliveryWaiter: (() => void) | undefined;
    receiver.onRequest = () => deliveryWaiter?.();

    say(`load and faults for ${opts.durationSeconds} s`);
    const load = startLoad(api, { tenants: loaders, burst, personIds, maxJobs: opts.maxJobs, jobSize: 20, pauseMs: 400, volley: 35 });
    const faults = await runFaults({
      services,
      api,
      probeTenant: loaders[0],
      say,
      deadline: loadStart + opts.durationSeconds * 1000,
      jobRunning: async () => (await stores.jobs.countRunningJobs()) > 0,
      holdNextDelivery: (holdMs, timeoutMs) =>
        new Promise<string | null>((resolve) => {
          const t = setTimeout(() => {
            hold = undefined;
            resolve(null);
          }, timeoutMs);
          hold = {
            ms: holdMs,
            seen: (id) => {
              clearTimeout(t);
              resolve(id);
            },
          };
        }),
      createProbeJob: async () => {
        const people = Array.from({ length: 3 }, () => personIds[Math.floor(Math.random() * personIds.length)]);
        const r = await api.call(temporalProbe.orgId, temporalProbe.key, 'job (Temporal down)', 'POST', '/v1/contact-retrieval-jobs', {
          person_ids: people,
          fields: ['email'],
        });
        return { status: r.status, ms: r.ms, jobId: r.json?.job_id };
      },
      leaseSlots: async () => (await stores.limits.everyHeldLease()).map((d) => ({ _id: d._id, token: d.token, exp: d.exp })),
      startSecondApi: () => services.startSecondApi(config),
      leaseTtlSeconds: LEASE_TTL_SECONDS,
      nextDelivery: (timeoutMs) =>
        new Promise<boolean>((resolve) => {
          const t = setTimeout(() => resolve(false), timeoutMs);
          deliveryWaiter = () => {
            clearTimeout(t);
            deliveryWaiter = undefined;
            resolve(true);
          };
        }),
    });
    await sleep(Math.max(0, loadStart + opts.durationSeconds * 1000 - Date.now()));
    await load.stop();
    say(`load stopped: ${load.state.jobsStarted.length} jobs accepted; refused job starts ${JSON.stringify(load.state.jobsRefused)}`);

    await services.ensureWorker();
    const orgIds = tenants.map((t) => t.orgId);
    const drainEnd = Date.now() + opts.drainSeconds * 1000;
    for (;;) {
      const o = await outstanding(stores, orgIds);
      if ((o.runningJobs === 0 && o.undeliveredEvents === 0) || Date.now() > drainEnd) {
        say(`drain: ${o.runningJobs} jobs running, ${o.undeliveredEvents} events undelivered`);
        break;
      }
      await services.ensureWorker();
      await sleep(2000);
    }

    const lines = await reconcile({
      stores,
      tenants,
      requests: receiver.requests,
      refusedByReceiver,
      calls: api.calls,
      faults,
      unexpectedWorkerExits: services.unexpectedWorkerExits,
    });
    const printed = printLedger(lines);
    const failed = lines.filter((l) => !l.ok).length;
    const summary = `chaos run: ${opts.durationSeconds} s of load, ${((Date.now() - t0) / 1000).toFixed(0)} s in all — ${failed ? `${failed} line(s) do not balance` : 'the ledger balances'}`;
    process.stdout.write(`\n${summary}\n${printed}\n`);
    writeFileSync(join(dir, 'ledger.txt'), `${summary}\n${printed}\n`);
    writeFileSync(join(dir, 'calls.json'), JSON.stringify(api.calls));
    exitCode = failed ? 1 : 0;
  } catch (err) {
    say(`run failed: ${(err as Error).stack}`);
  } finally {
    say('stopping everything this run started');
    await services.stopAll();
    await store?.close().catch(() => undefined);
    await receiver.close();
    await provider.close();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    else say(`kept ${dir}`);
  }
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`chaos failed: ${(err as Error).stack}\n`);
    process.exit(1);
  },
);
