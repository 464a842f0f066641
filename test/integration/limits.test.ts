import type { Config } from '../../core/config';
import { createDeps } from '../../core/deps';
import { PERMISSIONS } from '../../core/keys/permissions';
import { BASELINE_ENTRY, OPERATIONS } from '../../core/limits/limitTable';
import { blockOperation, clearLimit, setCap, setOrganizationRate } from '../../core/limits/limitSettings';
import { windowBlockSize } from '../../core/limits/admissionBlocks';
import { heldLeases, StoreAdmission, type RequestAdmission } from '../../core/limits/requestAdmission';
import { openTestStore, type TestStore, fileStores } from '../support/testStore';
import { runAdminWith } from '../support/adminCli';
import { startApiProcess } from '../support/apiProcess';
import { eventually } from '../support/eventually';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { api, apiHonouringRateLimits, type HttpResponse } from '../support/http';
import { testConfig } from '../support/testConfig';
import { serveApp } from '../support/testApi';
import { TestClock } from '../support/testClock';
import { expectProblemResponse } from '../support/problems';
import { testLogger } from '../support/capturedLogs';

let testStore: TestStore;

/**
 * Operational limits (SPEC 8) across replicas sharing one store, with no balancer: every limit
 * must hold across replicas because no process memory is authoritative. `replicas` are an API
 * process of its own and an app in this process, both on the wall clock: two processes that
 * share the window, the per-minute caps and the in-flight places. The tests that hold load to
 * seconds run on two apps in this process (each with its own admission, as a replica has) whose
 * admissions read a clock the test moves, so that each request lands in the second the test
 * chose, whatever the machine's speed.
 */

const LEASE_TTL_SECONDS = 3;

interface Replica {
  url: string;
  close: () => Promise<void>;
}

let cfg: Config;
/** An app in this process and an API process of its own (`api/server.ts`), both on the wall clock. */
const replicas: Replica[] = [];
/** The clock of the in-process apps' admissions. */
const clock = new TestClock();
const apps: Replica[] = [];

/** This process's own admission (the replicas under test have theirs). */
let admission: StoreAdmission;

/** The collection the admissions' slots are written to, on the file's store connection: what a test watches its commands on. */
const slotCollection = () => testStore.handle.connection.collection('admission_slots');
/** Slots of the organization's request window in one second. */
const windowSlotsOf = async (orgId: string, second: number) => (await testStore.stores.limits.slotIdsWithPrefix(`w:req:${orgId}:${second}:`)).length;

beforeAll(async () => {
  cfg = testConfig({ LIMITS_LEASE_TTL_SECONDS: String(LEASE_TTL_SECONDS) });
  testStore = await openTestStore(cfg);
  admission = new StoreAdmission(testStore.stores.limits, Date.now, testLogger());
  const [processReplica, ...inProcess] = await Promise.all([
    startApiProcess(cfg, { LOG_LEVEL: 'silent', LIMITS_LEASE_TTL_SECONDS: String(LEASE_TTL_SECONDS), API_WARM_START: 'false' }),
    serveApp(createDeps(cfg, { logger: testLogger(), store: testStore.handle })),
    ...[0, 1].map(() =>
      serveApp(
        createDeps(cfg, { logger: testLogger(), store: testStore.handle, admission: new StoreAdmission(testStore.stores.limits, clock.now, testLogger()) }),
      ),
    ),
  ]);
  replicas.push(inProcess[0], { url: processReplica.url, close: () => processReplica.stop() });
  apps.push(...inProcess.slice(1));
});

afterAll(async () => {
  await Promise.all([...replicas, ...apps].map((r) => r.close()));
  await admission?.leaseReleaser.drain();
  await testStore.close();
});

// The one real wait left paces requests to the replicas, which read the wall clock, into one
// second. Admissions made in this process and by the in-process apps take an injected clock.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A clock stopped well inside one second (its start returned as `second`), for admissions made here. */
function stoppedClock(): { now: () => number; second: number } {
  const second = Math.floor(Date.now() / 1000) + 1;
  return { now: () => second * 1000 + 100, second };
}

/** Waits until the start of the next wall-clock second (plus a small margin), for requests to the replicas. */
async function nextSecond(marginMs = 20): Promise<number> {
  const now = Date.now();
  const start = (Math.floor(now / 1000) + 1) * 1000;
  await sleep(start - now + marginMs);
  return start;
}

function expectRateLimited(res: HttpResponse) {
  expectProblemResponse(res, 429, 'rate_limited');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(res.headers['cache-control']).toBe('private, no-store');
  expect(res.headers['ratelimit-policy']).toMatch(/^"baseline";q=\d+;w=1/);
}

async function waitForNoLeases(orgId: string) {
  await eventually('leases released', async () => (await heldLeases(testStore.stores.limits, orgId)).length === 0, { timeoutMs: 10_000, intervalMs: 50 });
}

/** Releases the leases of the admitted ones, as finished requests do, and waits for the deletes. */
async function releaseAdmitted(admissions: RequestAdmission[]) {
  for (const a of admissions) if (a.admitted) admission.leaseReleaser.release(a.lease.token, a.lease.slotId);
  await admission.leaseReleaser.drain();
}

/**
 * Offers `perSecond` requests in each of `seconds` seconds of the in-process apps' clock, `batch`
 * at a time (alternating between the apps), the clock moving on evenly between batches; each
 * second's requests are all answered before the next second starts. `after` runs at the end of
 * each second, before the clock leaves it.
 */
async function offerSeconds(
  opts: { seconds: number; perSecond: number; batch: number; send: (url: string, i: number) => Promise<HttpResponse> },
  after: (second: number) => Promise<void> = async () => undefined,
): Promise<Array<{ second: number; res: HttpResponse }>> {
  const results: Array<{ second: number; res: HttpResponse }> = [];
  const batches = Math.ceil(opts.perSecond / opts.batch);
  for (let s = 0; s < opts.seconds; s++) {
    const second = clock.nextSecond();
    for (let b = 0; b < batches; b++) {
      const start = s * opts.perSecond + b * opts.batch;
      const count = Math.min(opts.batch, opts.perSecond - b * opts.batch);
      const answered = await Promise.all(Array.from({ length: count }, (_, j) => opts.send(apps[(start + j) % 2].url, start + j)));
      results.push(...answered.map((res) => ({ second, res })));
      clock.advance(Math.floor(1000 / batches));
    }
    await after(second);
  }
  return results;
}

describe('request rate: strict one-second window shared by every key and replica', () => {
  test('an operator-raised rate is admitted in blocks: never above it in any second, one store write per block', async () => {
    const tenant = await createTenant();
    const limit = 300;
    const size = windowBlockSize(limit);
    expect(size).toBeGreaterThan(1);
    await setOrganizationRate(fileStores(), cfg, tenant.orgId, { requestsPerSecond: limit, maxConcurrency: 1000 }, Date.now);
    const blocksBySecond = new Map<number, number>();
    // 400 offered in each of 3 seconds.
    const results = await offerSeconds(
      { seconds: 3, perSecond: 400, batch: 40, send: (url) => api(url, 'GET', '/v1/whoami', { key: tenant.key }) },
      // Counted before the clock moves on: each app deletes its windows once they are two seconds old.
      async (s) => void blocksBySecond.set(s, await windowSlotsOf(tenant.orgId, s)),
    );
    for (const r of results) if (r.res.status !== 200) expectRateLimited(r.res);
    const admitted = results.filter((r) => r.res.status === 200);
    const seconds = [...blocksBySecond.keys()].map((s) => ({
      second: s,
      within: admitted.filter((r) => r.second === s).length,
      // Requests the apps decided in this second, left out those an in-flight limit refused (the
      // window gave their slot back).
      decided: results.filter((r) => r.second === s && r.res.json?.limit !== 'max_concurrency').length,
      blocks: blocksBySecond.get(s)!,
    }));
    const refusedBy: Record<string, number> = {};
    for (const r of results) if (r.res.status !== 200) refusedBy[String(r.res.json?.limit)] = (refusedBy[String(r.res.json?.limit)] ?? 0) + 1;
    // A second's window refuses only once its blocks are all taken, and each replica may leave
    // part of one block unused per second; nothing else is lost. So every second admits at least
    // what it decided, up to the limit less two blocks.
    const notLost = seconds.reduce((sum, f) => sum + Math.min(f.decided, limit - 2 * size), 0);
    // One comparison of every figure, so that a failure prints them all.
    const figures = { seconds, admitted: admitted.length, offered: results.length, refusedBy, notLost, blockSize: size };
    expect({
      figures,
      neverAboveTheRate: seconds.every((f) => f.within <= limit),
      oneWritePerBlock: seconds.every((f) => f.blocks <= limit / size),
      boundedOverTheRun: admitted.length <= limit * seconds.length,
      littleLost: admitted.length >= notLost * 0.9,
    }).toEqual({ figures, neverAboveTheRate: true, oneWritePerBlock: true, boundedOverTheRun: true, littleLost: true });
    // Lease blocks go back to the store once their last request finished.
    await waitForNoLeases(tenant.orgId);
  }, 60_000);

  test("a raised rate's next requests are admitted at once from the blocks this app holds, counted as the store path counts them", async () => {
    const tenant = await createTenant();
    const at = new TestClock();
    const second = at.nextSecond(100) / 1000;
    const own = new StoreAdmission(testStore.stores.limits, at.now, testLogger());
    // Blocks of 3 window slots and of 20 in-flight places.
    const request = { orgId: tenant.orgId, requestsPerSecond: 300, maxConcurrency: 1000, leaseTtlMs: 60_000 };
    // Nothing held yet: only the store can decide.
    expect(own.admitRequestNow(request)).toBeUndefined();
    const first = await own.admitRequest(request);
    const slots = await windowSlotsOf(tenant.orgId, second);
    const next = [own.admitRequestNow(request), own.admitRequestNow(request)];
    expect([first, ...next].map((a) => a?.admitted && a.count)).toEqual([1, 2, 3]);
    expect(own.windowRemaining(own.requestScopeKeyOf(tenant.orgId), 300)).toBe(297);
    expect(own.inFlightRemaining(tenant.orgId, 1000)).toBe(997);
    expect(await windowSlotsOf(tenant.orgId, second)).toBe(slots);
    // The block is used up: the store path takes the next one.
    expect(own.admitRequestNow(request)).toBeUndefined();
    const fourth = await own.admitRequest(request);
    expect(fourth.admitted && fourth.count).toBe(4);
    // A new second is opened by the store path too.
    at.advance(1000);
    expect(own.admitRequestNow(request)).toBeUndefined();
    for (const a of [first, ...next, fourth]) if (a?.admitted) own.releaseLease(a.lease);
    expect(own.inFlightRemaining(tenant.orgId, 1000)).toBe(1000);
    await own.close();
    await waitForNoLeases(tenant.orgId);
  });

  test('three keys offering 60 requests/s for 10 s through two replicas: at most 25 admitted in each second, exactly 25 when offered', async () => {
    const tenant = await createTenant();
    const keys = [tenant.key, (await addKey(tenant, [PERMISSIONS.candidatesSearch])).key, (await addKey(tenant, [PERMISSIONS.jobsRead])).key];
    const total = 600;
    const results = await offerSeconds({ seconds: 10, perSecond: 60, batch: 10, send: (url, i) => api(url, 'GET', '/v1/whoami', { key: keys[i % 3] }) });
    expect(results).toHaveLength(total);
    const admitted = results.filter((r) => r.res.status === 200);
    for (const r of results) {
      if (r.res.status !== 200) expectRateLimited(r.res);
      else expect(r.res.headers['ratelimit']).toMatch(/^"baseline";r=\d+;t=1, "in_flight";r=\d+$/);
    }
    const perSecond = [...new Set(results.map((r) => r.second))].map((second) => ({
      second,
      within: admitted.filter((r) => r.second === second).length,
      // When 25 requests decided in this second could have been admitted, the second's 25 slots
      // were all used. Those the in-flight limit refused gave their window slot back: the window
      // did not judge them.
      decided: results.filter((r) => r.second === second && r.res.json?.limit !== 'max_concurrency').length,
    }));
    expect({
      perSecond,
      aboveTheRate: perSecond.filter((p) => p.within > 25),
      belowTheRateWhenOffered: perSecond.filter((p) => p.decided >= 25 && p.within < 25),
    }).toEqual({ perSecond, aboveTheRate: [], belowTheRateWhenOffered: [] });
    // 60 offered per second, 25 admitted: refused requests are most of the traffic, and each
    // second admits what it decided, up to 25: 250 over the ten seconds.
    expect(admitted.length).toBeGreaterThanOrEqual(perSecond.reduce((n, p) => n + Math.min(p.decided, 25), 0));
    expect(admitted.length).toBeLessThanOrEqual(25 * perSecond.length);
    await waitForNoLeases(tenant.orgId);
  }, 60_000);

  test('a request refused by a later check gives its baseline slot back; an operation rate below the baseline wins', async () => {
    const tenant = await createTenant();
    await blockOperation(fileStores(), cfg, { orgId: tenant.orgId, operation: 'whoami', scope: { type: 'key', id: tenant.keyId }, now: Date.now });
    const other = await addKey(tenant, [PERMISSIONS.jobsRead]);
    // 20 blocked requests, then 25 from another key, all in one second.
    clock.nextSecond(100);
    const blocked = await Promise.all(Array.from({ length: 20 }, (_, i) => api(apps[i % 2].url, 'GET', '/v1/whoami', { key: tenant.key })));
    const allowed = [];
    for (let b = 0; b < 5; b++) {
      allowed.push(...(await Promise.all(Array.from({ length: 5 }, (_, i) => api(apps[i % 2].url, 'GET', '/v1/whoami', { key: other.key })))));
    }
    const extra = await api(apps[0].url, 'GET', '/v1/whoami', { key: other.key });
    for (const r of blocked) expectRateLimited(r);
    expect(blocked.filter((r) => r.json.limit === 'denied').length).toBeGreaterThan(0);
    expect(allowed.map((r) => r.status)).toEqual(new Array(25).fill(200));
    expectRateLimited(extra);
    expect(extra.json.limit).toBe('requests_per_second');
    // contact_retrieval_jobs.get has its own rate of 20/s: 30 offered in one second → 20 pass
    // admission (404: no such job), 10 are refused and give their baseline slot back, so 5
    // more whoami requests still fit in the organization's 25.
    clock.nextSecond(100);
    const reads = [];
    for (let b = 0; b < 3; b++) {
      reads.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, i) => api(apps[i % 2].url, 'GET', '/v1/contact-retrieval-jobs/job_doesnotexist0000000000', { key: other.key })),
        )),
      );
    }
    const more = await Promise.all(Array.from({ length: 5 }, (_, i) => api(apps[i % 2].url, 'GET', '/v1/whoami', { key: other.key })));
    const last = await api(apps[1].url, 'GET', '/v1/whoami', { key: other.key });
    const refused = reads.filter((r) => r.status === 429);
    expect(reads.length - refused.length).toBe(20);
    expect(refused).toHaveLength(10);
    // A request refused by the operation rate holds its baseline slot until it gives it back,
    // so while the third batch of 10 is in flight up to 5 of them may find the baseline full
    // and be refused by it instead; the other 5 (at least) are refused by the operation's rate.
    for (const r of refused) {
      expectRateLimited(r);
      expect(r.json.limit).toBe('requests_per_second');
      expect(r.headers['ratelimit-policy']).toMatch(/"contact_retrieval_jobs\.get";q=20;w=1|"baseline";q=25;w=1/);
    }
    expect(refused.filter((r) => String(r.headers['ratelimit-policy']).includes('"contact_retrieval_jobs.get";q=20;w=1')).length).toBeGreaterThanOrEqual(5);
    expect(more.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(last);
    await waitForNoLeases(tenant.orgId);
  }, 30_000);

  // Two processes reading the wall clock: the window is the store's, not a process's.
  test('an organization-wide lower rate set by the operator applies to every key', async () => {
    const tenant = await createTenant();
    const second = await addKey(tenant, [PERMISSIONS.candidatesSearch]);
    await setOrganizationRate(fileStores(), cfg, tenant.orgId, { requestsPerSecond: 4 }, Date.now);
    for (let attempt = 0; attempt < 3; attempt++) {
      const start = await nextSecond();
      const res = await Promise.all(
        Array.from({ length: 8 }, (_, i) => api(replicas[i % 2].url, 'GET', '/v1/whoami', { key: i % 2 ? tenant.key : second.key })),
      );
      if (Date.now() >= start + 950) continue;
      expect(res.filter((r) => r.status === 200)).toHaveLength(4);
      for (const r of res.filter((x) => x.status !== 200)) expectRateLimited(r);
      expect(res.find((r) => r.status === 200)!.headers['ratelimit-policy']).toBe('"baseline";q=4;w=1, "in_flight";q=25;qu="concurrent-requests"');
      break;
    }
  });

  test('a request without its Idempotency-Key is 400 before any limit: it is malformed, not over a rate', async () => {
    const tenant = await createTenant();
    await setOrganizationRate(fileStores(), cfg, tenant.orgId, { requestsPerSecond: 1 }, Date.now);
    // Used up for this second (and the batch route's own rate is 2 per second).
    clock.nextSecond(100);
    await Promise.all([1, 2].map(() => api(apps[0].url, 'GET', '/v1/whoami', { key: tenant.key })));
    const keyless = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? api(apps[i % 2].url, 'POST', '/v1/contact-retrieval-jobs/batch', { key: tenant.key, body: { search_id: 'srch_4Wm9Kq2Xb7Rt3Ln8Vc5YhD' } })
          : api(apps[i % 2].url, 'POST', '/v1/candidates/search', { key: tenant.key, body: { query: 'engineer' } }),
      ),
    );
    for (const res of keyless) expect({ status: res.status, code: res.json?.code }).toEqual({ status: 400, code: 'invalid_idempotency_key' });
  });
});

describe('per-minute caps', () => {
  test('a cap set through the operator CLI holds exactly across replicas; other keys are not affected', async () => {
    const tenant = await createTenant();
    const other = await addKey(tenant, [PERMISSIONS.candidatesSearch]);
    // cfg carries LIMITS_LEASE_TTL_SECONDS, as the API processes' environment does.
    const cli = await runAdminWith(createDeps(cfg, { logger: testLogger(), store: testStore.handle }), [
      'limit',
      'set',
      '--org',
      tenant.orgId,
      '--operation',
      'whoami',
      '--key-id',
      tenant.keyId,
      '--requests-per-minute',
      '7',
    ]);
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ operation: 'whoami', scope: { type: 'key', id: tenant.keyId }, requests_per_minute: 7, source: 'override' });
    const res: HttpResponse[] = [];
    // 20 requests fit any second's baseline of 25: only the cap refuses.
    for (let b = 0; b < 4; b++) {
      res.push(...(await Promise.all(Array.from({ length: 5 }, (_, i) => api(replicas[i % 2].url, 'GET', '/v1/whoami', { key: tenant.key })))));
    }
    const ok = res.filter((r) => r.status === 200);
    expect(ok).toHaveLength(7);
    expect(ok.map((r) => r.headers['ratelimit']).join(' ')).toContain('"whoami@key";r=0;t=');
    for (const r of res.filter((x) => x.status !== 200)) {
      expectRateLimited(r);
      expect(r.json.limit).toBe('requests_per_minute');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(50);
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(r.headers['ratelimit-policy']).toContain('"whoami@key";q=7;w=60');
    }
    expect((await api(replicas[1].url, 'GET', '/v1/whoami', { key: other.key })).status).toBe(200);
    // Clearing lifts it at once, on every replica.
    await clearLimit(fileStores(), cfg, { orgId: tenant.orgId, operation: 'whoami', scope: { type: 'key', id: tenant.keyId }, now: Date.now });
    expect((await api(replicas[0].url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);
    expect((await api(replicas[1].url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);
  });
});

describe('requests in flight', () => {
  test('held leases refuse new requests on both replicas until one is released', async () => {
    const tenant = await createTenant();
    await setOrganizationRate(fileStores(), cfg, tenant.orgId, { maxConcurrency: 3 }, Date.now);
    const held = [];
    for (let i = 0; i < 3; i++) {
      const r = await admission.admitRequest({ orgId: tenant.orgId, requestsPerSecond: 25, maxConcurrency: 3, leaseTtlMs: 60_000, now: stoppedClock().now });
      expect(r.admitted).toBe(true);
      if (r.admitted) held.push(r.lease);
    }
    // The 3 admissions above used a window second of their own; the 6 requests below fit any second's 25.
    for (const replica of replicas) {
      const res = await api(replica.url, 'GET', '/v1/whoami', { key: tenant.key });
      expectRateLimited(res);
      expect(res.json.limit).toBe('max_concurrency');
    }
    admission.leaseReleaser.release(held[0].token, held[0].slotId);
    await admission.leaseReleaser.drain();
    expect((await api(replicas[1].url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);
    // The slot is free again once the response finished.
    await eventually('lease released', async () => (await heldLeases(testStore.stores.limits, tenant.orgId)).length === 2, {
      timeoutMs: 5000,
      intervalMs: 200,
    });
    for (const l of held.slice(1)) admission.leaseReleaser.release(l.token, l.slotId);
    await admission.leaseReleaser.drain();
    // Three concurrent requests fit, and every lease is gone when they finish.
    const res = await Promise.all(replicas.concat(replicas[0]).map((r) => api(r.url, 'GET', '/v1/whoami', { key: tenant.key })));
    expect(res.map((r) => r.status)).toEqual([200, 200, 200]);
    await waitForNoLeases(tenant.orgId);
  });

  test('requests of one process admitted at the same moment do not collide with each other', async () => {
    const tenant = await createTenant();
    // All 20 in one window second: the clock does not move.
    const { now } = stoppedClock();
    const admit = () => admission.admitRequest({ orgId: tenant.orgId, requestsPerSecond: 25, maxConcurrency: 25, leaseTtlMs: 60_000, now });
    // Watched, not replaced. Colliding requests would try window slot 0, then 1, … one round trip
    // after another, and lease probes that collide fall back to reading the organization's leases.
    const inserts = jest.spyOn(slotCollection(), 'insertMany');
    const finds = jest.spyOn(slotCollection(), 'find');
    const got = await Promise.all(Array.from({ length: 20 }, admit));
    const insertCommands = inserts.mock.calls.length;
    const findCommands = finds.mock.calls.length;
    inserts.mockRestore();
    finds.mockRestore();
    expect(got.every((g) => g.admitted)).toBe(true);
    const counts = got.map((g) => (g.admitted ? g.count : 0)).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(got.map((g) => (g.admitted ? g.lease.slotId : ''))).size).toBe(20);
    expect(findCommands).toBe(0);
    expect(insertCommands).toBeLessThanOrEqual(2);
    await releaseAdmitted(got);
    await waitForNoLeases(tenant.orgId);
  });

  test('a store error on the window side gives back the lease the same request took', async () => {
    const tenant = await createTenant();
    const { now } = stoppedClock();
    const admit = () => admission.admitRequest({ orgId: tenant.orgId, requestsPerSecond: 2, maxConcurrency: 25, leaseTtlMs: 60_000, now });
    const held = [await admit(), await admit()];
    expect(held.map((h) => h.admitted)).toEqual([true, true]);
    // The window is full, so the third request reads it from the store; that read fails.
    const finds = jest.spyOn(slotCollection(), 'find').mockImplementationOnce(() => {
      throw new Error('store unavailable');
    });
    await expect(admit()).rejects.toThrow('store unavailable');
    finds.mockRestore();
    await releaseAdmitted(held);
    await waitForNoLeases(tenant.orgId);
  });

  test('a process holding every in-flight place refuses more without a store write', async () => {
    const tenant = await createTenant();
    const { now, second } = stoppedClock();
    const admit = () => admission.admitRequest({ orgId: tenant.orgId, requestsPerSecond: 25, maxConcurrency: 2, leaseTtlMs: 60_000, now });
    const held = [await admit(), await admit()];
    expect(held.map((h) => h.admitted)).toEqual([true, true]);
    // Watched, not replaced: the inserts still reach the store.
    const inserts = jest.spyOn(slotCollection(), 'insertMany');
    const refused = await admit();
    const insertCommands = inserts.mock.calls.length;
    inserts.mockRestore();
    expect(refused).toMatchObject({ admitted: false, reason: 'in_flight' });
    expect(insertCommands).toBe(0);
    const windowSlots = await windowSlotsOf(tenant.orgId, second);
    expect(windowSlots).toBe(2);
    await releaseAdmitted(held);
    expect((await admit()).admitted).toBe(true);
  });

  test('leases of a killed process are reclaimed after lease_ttl_seconds', async () => {
    const tenant = await createTenant();
    await setOrganizationRate(fileStores(), cfg, tenant.orgId, { maxConcurrency: 2 }, Date.now);
    // An admission that takes its leases and is then dropped, never giving them back: the store
    // holds what a process killed mid-request leaves, and no one remembers them elsewhere.
    const holder = new StoreAdmission(testStore.stores.limits, clock.now, testLogger());
    const taken = await Promise.all(
      [0, 1].map(() => holder.admitRequest({ orgId: tenant.orgId, requestsPerSecond: 1000, maxConcurrency: 2, leaseTtlMs: LEASE_TTL_SECONDS * 1000 })),
    );
    expect(taken.map((t) => t.admitted)).toEqual([true, true]);
    expect((await heldLeases(testStore.stores.limits, tenant.orgId)).length).toBe(2);
    clock.advance(LEASE_TTL_SECONDS * 1000 - 200);
    const refused = await api(apps[0].url, 'GET', '/v1/whoami', { key: tenant.key });
    expectRateLimited(refused);
    expect(refused.json.limit).toBe('max_concurrency');
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(LEASE_TTL_SECONDS);
    // The other app judges the dropped holder's leases expired once its clock passed their TTL.
    clock.advance(300);
    const res = await api(apps[1].url, 'GET', '/v1/whoami', { key: tenant.key });
    expect(res.status).toBe(200);
    await waitForNoLeases(tenant.orgId);
  });
});

describe('GET /v1/operational-limits', () => {
  let tenant: TestTenant;
  // Honours 429s: the organization's rate is lowered to 12 per second below, and this file's reads come quickly.
  const read = (query: string, key = tenant.key) => apiHonouringRateLimits(replicas[0].url, 'GET', `/v1/operational-limits${query}`, { key });
  const entry = (res: HttpResponse, operation: string, scopeType: string) =>
    res.json.data.find((e: any) => e.operation === operation && e.scope.type === scopeType);

  beforeAll(async () => {
    tenant = await createTenant();
  });

  test("without filters: one defaults entry per operation, the organization's, in one page", async () => {
    const res = await read('');
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"baseline";q=25;w=1, "in_flight";q=25;qu="concurrent-requests"');
    expect(res.json.next_cursor).toBeNull();
    expect(res.json.data.map((e: any) => e.operation)).toEqual([BASELINE_ENTRY, ...OPERATIONS]);
    for (const e of res.json.data) expect(e).toMatchObject({ scope: { type: 'organization', id: tenant.orgId }, source: 'inherited', status: 'active' });
  });

  test('pages: every entry once in report order; a forged cursor is invalid_cursor', async () => {
    const all = (await read('?operation=whoami')).json.data.concat((await read('?scope=key')).json.data);
    const seen: any[] = [];
    for (const filter of ['operation=whoami', 'scope=key']) {
      let cursor: string | null = null;
      do {
        const page: HttpResponse = await read(`?${filter}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.json.data.length).toBeLessThanOrEqual(7);
        seen.push(...page.json.data);
        cursor = page.json.next_cursor;
      } while (cursor);
    }
    expect(seen).toEqual(all);
    expectProblemResponse(await read('?cursor=bm9wZQ'), 400, 'invalid_cursor');
  });

  test('defaults when the organization has none of its own, for the organization, application, key family and key', async () => {
    const res = await read('?limit=100&scope=organization');
    const narrower = await Promise.all(['application', 'key_family', 'key'].map((scope) => read(`?scope=${scope}`)));
    res.json.data.push(...narrower.flatMap((r) => r.json.data));
    const scopes = new Set(res.json.data.map((e: any) => `${e.scope.type}:${e.scope.id}`));
    expect(scopes).toEqual(
      new Set([`organization:${tenant.orgId}`, `application:${tenant.applicationId}`, `key_family:${tenant.familyId}`, `key:${tenant.keyId}`]),
    );
    expect(entry(res, BASELINE_ENTRY, 'organization')).toEqual({
      operation: BASELINE_ENTRY,
      scope: { type: 'organization', id: tenant.orgId },
      status: 'active',
      source: 'inherited',
      requests_per_second: 25,
      requests_per_minute: null,
      max_concurrency: 25,
      lease_ttl_seconds: LEASE_TTL_SECONDS,
      standard_requests_per_minute: 1500,
      maximum_requests_per_minute: 1499,
      suggested_requests_per_minute: 1200,
      inherited_ceiling_ref: null,
    });
    expect(entry(res, 'contact_retrieval_jobs.create', 'key')).toMatchObject({
      requests_per_second: 10,
      source: 'inherited',
      inherited_ceiling_ref: `key_family:${tenant.familyId}/contact_retrieval_jobs.create`,
    });
    for (const e of res.json.data) expect(e.status).toBe('active');
  });

  test('query parameters narrow the read; foreign ids are 404; the permission is required', async () => {
    const one = await read(`?operation=whoami&key_id=${tenant.keyId}`);
    expect(one.json.data).toHaveLength(1);
    expect(one.json.data[0]).toMatchObject({ operation: 'whoami', scope: { type: 'key', id: tenant.keyId } });
    const orgOnly = await read('?scope=organization');
    expect(orgOnly.json.data.every((e: any) => e.scope.type === 'organization')).toBe(true);
    const foreign = await createTenant();
    expect((await read(`?key_id=${foreign.keyId}`)).status).toBe(404);
    expect((await read('?operation=nope')).status).toBe(422);
    const noPerm = await addKey(tenant, [PERMISSIONS.candidatesSearch]);
    expect((await read('', noPerm.key)).json.code).toBe('insufficient_scope');
  });

  test('before and after each kind of override: cap, block, organization rate, and clearing', async () => {
    const op = 'contact_retrieval_jobs.get';
    await setCap(fileStores(), cfg, {
      orgId: tenant.orgId,
      operation: op,
      scope: { type: 'application', id: tenant.applicationId },
      requestsPerMinute: 600,
      now: Date.now,
    });
    let res = await read(`?operation=${op}`);
    expect(entry(res, op, 'organization')).toMatchObject({ source: 'inherited', requests_per_minute: null });
    expect(entry(res, op, 'application')).toMatchObject({ source: 'override', requests_per_minute: 600, standard_requests_per_minute: 1200 });
    expect(entry(res, op, 'key')).toMatchObject({ source: 'override', requests_per_minute: 600 });
    // Without filters: the organization's entries, and the entries the cap makes differ from them.
    const unfiltered = await read('');
    expect(unfiltered.json.data.filter((e: any) => e.scope.type !== 'organization').map((e: any) => `${e.scope.type}/${e.operation}`)).toEqual([
      `application/${op}`,
      `key_family/${op}`,
      `key/${op}`,
    ]);

    await blockOperation(fileStores(), cfg, { orgId: tenant.orgId, operation: op, scope: { type: 'key_family', id: tenant.familyId }, now: Date.now });
    res = await read(`?operation=${op}`);
    expect(entry(res, op, 'key_family')).toMatchObject({
      status: 'denied',
      source: 'override',
      requests_per_second: null,
      requests_per_minute: null,
      max_concurrency: null,
    });
    expect(entry(res, op, 'application')).toMatchObject({ status: 'active' });

    await setOrganizationRate(fileStores(), cfg, tenant.orgId, { requestsPerSecond: 12 }, Date.now);
    res = await read(`?operation=${BASELINE_ENTRY}&scope=organization`);
    expect(res.json.data).toEqual([expect.objectContaining({ source: 'override', requests_per_second: 12, standard_requests_per_minute: 720 })]);

    await clearLimit(fileStores(), cfg, { orgId: tenant.orgId, operation: op, scope: { type: 'key_family', id: tenant.familyId }, now: Date.now });
    await clearLimit(fileStores(), cfg, { orgId: tenant.orgId, operation: op, scope: { type: 'application', id: tenant.applicationId }, now: Date.now });
    await clearLimit(fileStores(), cfg, { orgId: tenant.orgId, operation: BASELINE_ENTRY, scope: { type: 'organization', id: tenant.orgId }, now: Date.now });
    res = await read(`?operation=${op}`);
    expect(entry(res, op, 'key_family')).toMatchObject({ status: 'active', source: 'cleared', requests_per_minute: null, requests_per_second: 20 });
    expect(entry(res, op, 'application')).toMatchObject({ source: 'cleared', requests_per_minute: null });
    res = await read(`?operation=${BASELINE_ENTRY}&scope=organization`);
    expect(res.json.data[0]).toMatchObject({ source: 'cleared', requests_per_second: 25 });
  });
});
