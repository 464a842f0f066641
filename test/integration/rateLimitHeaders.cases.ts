import type { Config } from '../../core/config';
import { createDeps, type Deps } from '../../core/deps';
import type { OperationName } from '../../core/limits/limitTable';
import { setCap, setOrganizationRate } from '../../core/limits/limitSettings';
import { admissionUnder, type AdmissionHandle } from '../../core/limits/operationAdmission';
import { parseRateLimit } from '../../core/limits/rateLimitHeaders';
import { StoreAdmission } from '../../core/limits/requestAdmission';
import { secondsUntilNextWindow, windowSecond } from '../../core/limits/strictWindow';
import { Problem } from '../../core/problems';
import { openTestStore, type TestStore, fileStores } from '../support/testStore';
import { createTenant, keyPrincipalOf } from '../support/fixtures';
import { seededRandom } from '../support/seededRandom';
import { TestClock } from '../support/testClock';
import { testConfig } from '../support/testConfig';
import { testLogger } from '../support/capturedLogs';

let testStore: TestStore;

/**
 * RateLimit headers equal admission (SPEC 8.1): random mixes of operations, held and finished
 * requests and clock moves drive one app's admission at and over an organization's lowered
 * limits on an injected clock. A model of the limits says what each request must be told and
 * whether it must be admitted; every answer's RateLimit and RateLimit-Policy must name each limit
 * that could refuse it with exactly the `r` the next request finds, and a refusal changes no `r`.
 */

const RATE = 6;
const IN_FLIGHT = 3;
const CAP_PER_MINUTE = 9;
/** Operations with their own rate (lower than RATE) and one without (whoami, under a per-minute cap). */
const OWN_RATES: Partial<Record<OperationName, number>> = { 'contact_retrieval_jobs.cancel': 5, 'webhook_endpoints.rotate_secret': 2 };
const OPERATIONS: OperationName[] = ['whoami', 'contact_retrieval_jobs.cancel', 'webhook_endpoints.rotate_secret'];

let cfg: Config;

beforeAll(async () => {
  cfg = testConfig({ LIMITS_LEASE_TTL_SECONDS: '3600' });
  testStore = await openTestStore(cfg);
});

afterAll(async () => {
  await testStore.close();
});

type Refusal = 'requests_per_second' | 'max_concurrency' | 'requests_per_minute' | undefined;

interface Expected {
  refusedBy: Refusal;
  /** Policy → expected `r`, in header order. */
  remaining: Array<[string, number]>;
}

/** The limits as the service must apply them, kept by the test. */
class LimitsModel {
  private windows = new Map<string, { second: number; count: number }>();
  private capTimes: number[] = [];
  held = 0;

  private count(scope: string, second: number): number {
    const w = this.windows.get(scope);
    return w && w.second === second ? w.count : 0;
  }

  private take(scope: string, second: number, by: number): void {
    this.windows.set(scope, { second, count: this.count(scope, second) + by });
  }

  request(operation: OperationName, now: number): Expected {
    const second = windowSecond(now);
    const remaining: Array<[string, number]> = [];
    const inFlight = (): [string, number] => ['in_flight', IN_FLIGHT - this.held];
    if (this.held === IN_FLIGHT)
      return {
        refusedBy: 'max_concurrency',
        remaining: [
          ['baseline', RATE - this.count('baseline', second)],
          ['in_flight', 0],
        ],
      };
    if (this.count('baseline', second) === RATE) return { refusedBy: 'requests_per_second', remaining: [['baseline', 0], inFlight()] };
    this.take('baseline', second, 1);
    const own = OWN_RATES[operation];
    const refuse = (refusedBy: Refusal, ...after: Array<[string, number]>): Expected => {
      this.take('baseline', second, -1);
      if (own !== undefined && refusedBy !== 'requests_per_second') this.take(operation, second, -1);
      return { refusedBy, remaining: [['baseline', RATE - this.count('baseline', second)], inFlight(), ...after] };
    };
    if (own !== undefined) {
      if (this.count(operation, second) === own) return refuse('requests_per_second', [operation, 0]);
      this.take(operation, second, 1);
    }
    const ownEntry = (): Array<[string, number]> => (own === undefined ? [] : [[operation, own - this.count(operation, second)]]);
    if (operation === 'whoami') {
      const used = this.capTimes.filter((t) => t > now - 60_000).length;
      if (used >= CAP_PER_MINUTE) return refuse('requests_per_minute', ...ownEntry(), ['whoami@key', 0]);
      this.capTimes.push(now);
      remaining.push(...ownEntry(), ['whoami@key', CAP_PER_MINUTE - used - 1]);
    } else remaining.push(...ownEntry());
    return { refusedBy: undefined, remaining: [['baseline', RATE - this.count('baseline', second)], inFlight(), ...remaining] };
  }
}

function policies(header: string): string[] {
  return [...header.matchAll(/(?:^|, )"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
}

async function runMix(seed: number, steps: number): Promise<{ admitted: number; refused: Record<string, number> }> {
  const random = seededRandom(seed);
  const clock = new TestClock(Math.floor(Date.now() / 1000) * 1000 + 1_000_000);
  const deps: Deps = createDeps(cfg, {
    logger: testLogger(),
    store: testStore.handle,
    admission: new StoreAdmission(testStore.stores.limits, clock.now, testLogger()),
  });
  const tenant = await createTenant();
  await setOrganizationRate(fileStores(), cfg, tenant.orgId, { requestsPerSecond: RATE, maxConcurrency: IN_FLIGHT }, Date.now);
  await setCap(fileStores(), cfg, {
    orgId: tenant.orgId,
    operation: 'whoami',
    scope: { type: 'key', id: tenant.keyId },
    requestsPerMinute: CAP_PER_MINUTE,
    now: Date.now,
  });
  const acquire = admissionUnder(deps);
  const principal = keyPrincipalOf(tenant);
  const model = new LimitsModel();
  const heldHandles: AdmissionHandle[] = [];
  const tally = { admitted: 0, refused: {} as Record<string, number> };

  const finish = async (handle: AdmissionHandle) => {
    handle.release();
    await deps.admission.leaseReleaser.drain();
    model.held--;
  };

  try {
    for (let step = 0; step < steps; step++) {
      const roll = random();
      if (roll < 0.12 && heldHandles.length) {
        await finish(heldHandles.splice(Math.floor(random() * heldHandles.length), 1)[0]);
        continue;
      }
      if (roll < 0.22) {
        clock.advance(Math.floor(random() * 400));
        continue;
      }
      if (roll < 0.3) {
        clock.nextSecond(Math.floor(random() * 900));
        continue;
      }
      const operation = OPERATIONS[Math.floor(random() * OPERATIONS.length)];
      const expected = model.request(operation, clock.now());
      let headers: Record<string, string>;
      let refusedBy: Refusal;
      let handle: AdmissionHandle | undefined;
      try {
        handle = await acquire(principal);
        await handle.admitOperation(operation);
        headers = handle.rateLimitHeaders();
      } catch (err) {
        if (!(err instanceof Problem) || err.code !== 'rate_limited') throw err;
        headers = err.headers;
        refusedBy = err.extensions.limit as Refusal;
      }
      const where = `seed ${seed}, step ${step}, ${operation} at ${clock.now() % 1000} ms into the second`;
      expect({ where, refusedBy }).toEqual({ where, refusedBy: expected.refusedBy });
      const told = parseRateLimit(headers.RateLimit);
      expect({ where, told: [...told].map(([p, v]) => [p, v.remaining]) }).toEqual({ where, told: expected.remaining });
      expect(policies(headers['RateLimit-Policy'])).toEqual(expected.remaining.map(([p]) => p));
      const t = secondsUntilNextWindow(clock.now());
      expect(told.get('baseline')!.resetSeconds).toBe(t);
      expect(told.get('in_flight')!.resetSeconds).toBeUndefined();
      expect(headers['RateLimit-Policy']).toContain(`"in_flight";q=${IN_FLIGHT};qu="concurrent-requests"`);

      if (refusedBy) {
        tally.refused[refusedBy] = (tally.refused[refusedBy] ?? 0) + 1;
        // The refused request's answer is over: it gives back the place it held (the model never counted it).
        handle?.release();
        await deps.admission.leaseReleaser.drain();
        continue;
      }
      tally.admitted++;
      model.held++;
      if (random() < 0.35) heldHandles.push(handle!);
      else await finish(handle!);
    }
  } finally {
    for (const h of heldHandles) h.release();
    await deps.admission.close();
  }
  return tally;
}

describe('RateLimit headers equal admission', () => {
  test.each([1, 2, 3])('seed %i: every answer names each limit with what the next request finds', async (seed) => {
    const tally = await runMix(seed, 220);
    // The mix reached every limit, so each kind of refusal was compared.
    expect(tally.admitted).toBeGreaterThan(20);
    expect(Object.keys(tally.refused).sort()).toEqual(['max_concurrency', 'requests_per_minute', 'requests_per_second']);
  });
});
