import { randomBytes } from 'node:crypto';
import { OPERATOR_CREDENTIAL_ID, jobStarter } from '../../core/jobs/jobStarter';
import {
  carriesResult,
  chunkRanges,
  jobOwnerOf,
  countsAddUp,
  countsFromTally,
  emptyCounts,
  finalJobStatus,
  leftoverOutcome,
  chunkChargeKey,
  resultTimes,
  uniquePersonIds,
  unknownPeople,
  planDeliveryReservation,
  utcDay,
  RESULT_PURGE_AFTER_MS,
  RESULT_RETENTION_MS,
  chargeableUnits,
  settlePlan,
  heldAnswer,
  type PlanEntry,
} from '../../core/jobs/jobRules';
import { cursorIndex, decodeListCursor, encodeListCursor } from '../../core/pageCursor';
import { Problem } from '../../core/problems';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

describe('job counts', () => {
  test('untallied people are pending and the seven counts add up', () => {
    const c = countsFromTally(10, { delivered: 3, not_found: 2, failed: 1, reused: 1, cancelled: 1 });
    expect(c).toEqual({ requested: 10, delivered: 3, not_found: 2, failed: 1, reused: 1, cancelled: 1, pending: 2 });
    expect(countsAddUp(c)).toBe(true);
    expect(countsAddUp({ ...c, pending: 3 })).toBe(false);
  });
  test('a tally beyond the requested people is an error', () => {
    expect(() => countsFromTally(2, { delivered: 3 })).toThrow();
  });
  test('a new job is all pending', () => {
    expect(emptyCounts(4)).toMatchObject({ requested: 4, pending: 4, delivered: 0 });
  });
});

describe('final status (SPEC 3.3)', () => {
  const c = (t: Parameters<typeof countsFromTally>[1], n = 4) => countsFromTally(n, t);
  test('completed when everyone is delivered, not_found or reused', () => {
    expect(finalJobStatus(c({ delivered: 2, not_found: 1, reused: 1 }), null, 0)).toBe('completed');
  });
  test('partial when some failed', () => {
    expect(finalJobStatus(c({ delivered: 3, failed: 1 }), null, 0)).toBe('partial');
    expect(finalJobStatus(c({ delivered: 1, failed: 3 }), 'insufficient_credits', 3)).toBe('partial');
  });
  test('failed when nobody could be processed', () => {
    expect(finalJobStatus(c({ failed: 4 }), null, 0)).toBe('failed');
    expect(finalJobStatus(c({ failed: 4 }), 'insufficient_credits', 4)).toBe('failed');
  });
  test('cancelled and expired when the stop left people behind', () => {
    expect(finalJobStatus(c({ delivered: 1, cancelled: 3 }), 'cancelled', 3)).toBe('cancelled');
    expect(finalJobStatus(c({ delivered: 1, failed: 3 }), 'expired', 3)).toBe('expired');
  });
  test('a cancel that came after everyone was processed does not change the status', () => {
    expect(finalJobStatus(c({ delivered: 4 }), 'cancelled', 0)).toBe('completed');
  });
  test('leftovers by stop reason', () => {
    expect(leftoverOutcome('cancelled')).toEqual({ outcome: 'cancelled', reason: null });
    expect(leftoverOutcome('expired')).toEqual({ outcome: 'failed', reason: 'job_expired' });
    expect(leftoverOutcome('insufficient_credits')).toEqual({ outcome: 'failed', reason: 'insufficient_credits' });
    expect(leftoverOutcome(null)).toEqual({ outcome: 'failed', reason: 'processing_error' });
  });
});

describe('results and retention', () => {
  test('a result exists when someone got an answer', () => {
    expect(carriesResult(countsFromTally(3, { not_found: 1, failed: 2 }))).toBe(true);
    expect(carriesResult(countsFromTally(3, { failed: 1, cancelled: 2 }))).toBe(false);
  });
  test('expires after 7 days, purged after 30', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const t = resultTimes(at, countsFromTally(1, { delivered: 1 }));
    expect(t.resultExpiresAt!.getTime() - at.getTime()).toBe(RESULT_RETENTION_MS);
    expect(RESULT_RETENTION_MS).toBe(7 * 24 * 3600 * 1000);
    expect(t.resultPurgeAt.getTime() - at.getTime()).toBe(RESULT_PURGE_AFTER_MS);
    expect(resultTimes(at, countsFromTally(1, { failed: 1 })).resultExpiresAt).toBeNull();
  });
});

describe('chunks, people and charge keys', () => {
  test('chunks cover every position once', () => {
    expect(chunkRanges(5, 2)).toEqual([
      { from: 0, to: 2 },
      { from: 2, to: 4 },
      { from: 4, to: 5 },
    ]);
    expect(chunkRanges(0, 3)).toEqual([]);
    expect(() => chunkRanges(3, 0)).toThrow();
  });
  test('person ids are deduplicated in order', () => {
    expect(uniquePersonIds(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });
  test('the charge key names the job and the person', () => {
    expect(chunkChargeKey('job_1', 50)).toBe('job:job_1:chunk:50');
  });
});

describe('cursors', () => {
  const CURSOR_KEY = new PurposeKeys(randomBytes(32));
  test('round trip', () => {
    const c = encodeListCursor(CURSOR_KEY, 'result:job_1', { seq: 41 });
    expect(decodeListCursor(CURSOR_KEY, c, 'result:job_1', { seq: cursorIndex })).toEqual({ seq: 41 });
  });
  test.each([
    ['garbage', '%%%'],
    ['not json', Buffer.from('nope').toString('base64url')],
  ])('a %s cursor is 400 invalid_cursor', (_n, cur) => {
    expect(() => decodeListCursor(CURSOR_KEY, cur, 's', { seq: cursorIndex })).toThrow(Problem);
  });
  test('a cursor of another list is refused', () => {
    const c = encodeListCursor(CURSOR_KEY, 'result:job_1', { seq: 1 });
    try {
      decodeListCursor(CURSOR_KEY, c, 'result:job_2', { seq: cursorIndex });
      throw new Error('accepted');
    } catch (err) {
      expect((err as Problem).code).toBe('invalid_cursor');
    }
  });
});

describe('paying a chunk', () => {
  const plan: PlanEntry[] = [
    { seq: 12, personId: 'p12', answer: 'found', emails: ['c@x.test'], phones: [] },
    { seq: 10, personId: 'p10', answer: 'found', emails: ['a@x.test'], phones: ['+1'] },
    { seq: 11, personId: 'p11', answer: 'not_found' },
    { seq: 13, personId: 'p13', answer: 'reused', emails: ['r@x.test'], phones: [] },
    { seq: 14, personId: 'p14', answer: 'failed', reason: 'provider_rejected' },
    { seq: 15, personId: 'p15', answer: 'found', emails: [], phones: ['+3'] },
  ];
  test('only found people are chargeable', () => {
    expect(chargeableUnits(plan)).toBe(3);
  });
  test('everything paid: every found person is delivered under the one receipt', () => {
    const s = settlePlan(plan, 3, 'rcpt_1');
    expect(s.map((p) => [p.seq, p.outcome, p.receiptId])).toEqual([
      [10, 'delivered', 'rcpt_1'],
      [11, 'not_found', null],
      [12, 'delivered', 'rcpt_1'],
      [13, 'reused', null],
      [14, 'failed', null],
      [15, 'delivered', 'rcpt_1'],
    ]);
    expect(s.find((p) => p.seq === 14)!.reason).toBe('provider_rejected');
    expect(s.find((p) => p.seq === 13)!.emails).toEqual(['r@x.test']);
  });
  test('partly paid: the first found people in position order are delivered, the rest fail with insufficient_credits and lose their contacts', () => {
    const s = settlePlan(plan, 1, 'rcpt_2');
    expect(s.filter((p) => p.outcome === 'delivered').map((p) => p.seq)).toEqual([10]);
    const unpaid = s.filter((p) => p.reason === 'insufficient_credits');
    expect(unpaid.map((p) => p.seq)).toEqual([12, 15]);
    expect(unpaid.every((p) => p.outcome === 'failed' && p.emails.length === 0 && p.phones.length === 0 && p.receiptId === null)).toBe(true);
  });
  test('nothing paid: no delivery at all', () => {
    expect(settlePlan(plan, 0, null).filter((p) => p.outcome === 'delivered')).toHaveLength(0);
  });
  test('people another job paid for are reused with their contacts and take no paid unit; unpaid ones fail free; pending ones wait', () => {
    const held = new Map([
      [10, 'reused' as const],
      [12, 'pending' as const],
    ]);
    const s = settlePlan(plan, 1, 'rcpt_3', held);
    expect(s.map((p) => [p.seq, p.outcome, p.receiptId])).toEqual([
      [10, 'reused', null],
      [11, 'not_found', null],
      [13, 'reused', null],
      [14, 'failed', null],
      [15, 'delivered', 'rcpt_3'],
    ]);
    expect(s.find((p) => p.seq === 10)!.emails).toEqual(['a@x.test']);
    const unpaid = settlePlan(plan, 3, 'rcpt_4', new Map([[15, 'unpaid' as const]])).find((p) => p.seq === 15)!;
    expect(unpaid).toMatchObject({ outcome: 'failed', reason: 'insufficient_credits', phones: [], receiptId: null });
  });
  test('a held person is reused once every holder paid, unpaid as soon as one did not, pending otherwise', () => {
    expect(heldAnswer(['paid', 'paid'])).toBe('reused');
    expect(heldAnswer(['paid', 'pending'])).toBe('pending');
    expect(heldAnswer(['pending', 'unpaid'])).toBe('unpaid');
  });
});

describe('who a job may reach and how much of the delivery quota it reserves', () => {
  test('unknownPeople: an absent person and one of a source not enabled are the same to the caller', () => {
    const sourceOf = new Map([
      ['per_a', 'src_talentpool'],
      ['per_b', 'src_publicweb'],
    ]);
    expect(unknownPeople(['per_a', 'per_b', 'per_c'], sourceOf, new Set(['src_talentpool']))).toEqual(['per_b', 'per_c']);
    expect(unknownPeople(['per_a', 'per_b'], sourceOf, new Set(['src_talentpool', 'src_publicweb']))).toEqual([]);
  });

  test('planDeliveryReservation: people counted today are free; the others are covered in job order while the quota lasts', () => {
    const counted = new Set(['per_x']);
    expect(planDeliveryReservation(['per_a', 'per_x', 'per_b', 'per_c'], counted, 8, 10)).toEqual({ covered: ['per_a', 'per_b'], over: ['per_c'] });
    expect(planDeliveryReservation(['per_a', 'per_a'], counted, 0, 10)).toEqual({ covered: ['per_a'], over: [] });
    expect(planDeliveryReservation(['per_x'], counted, 10, 10)).toEqual({ covered: [], over: [] });
    // Reservations of other jobs can push the count past the limit: nothing is covered.
    expect(planDeliveryReservation(['per_a'], counted, 12, 10)).toEqual({ covered: [], over: ['per_a'] });
  });

  test('utcDay: the day and the seconds until the next one', () => {
    expect(utcDay(Date.UTC(2026, 10, 23, 23, 59, 59, 500))).toEqual({ day: '2026-11-23', secondsLeft: 1 });
    expect(utcDay(Date.UTC(2026, 10, 23, 0, 0, 0))).toEqual({ day: '2026-11-23', secondsLeft: 86_400 });
  });
});

test("a job's owner is the key's organization, workspace, application, family and key, and nothing else of the principal", () => {
  const principal = {
    keyId: 'key_1',
    orgId: 'org_1',
    workspaceId: 'ws_1',
    applicationId: 'app_1',
    familyId: 'kf_1',
    predecessorKeyIds: ['key_0'],
    audience: 'https://api.example.test',
    scopes: ['jobs.v1:write' as const],
  };
  expect(jobOwnerOf(principal)).toEqual({ orgId: 'org_1', workspaceId: 'ws_1', applicationId: 'app_1', familyId: 'kf_1', keyId: 'key_1' });
});

describe('who started a job', () => {
  test('a key, a signed-in person, a tool-server client or the operator, as the audit log names them', () => {
    expect(jobStarter({ keyId: 'key_4mR9cQe2WvXb7TnLp0sYh1' })).toBe('key:key_4mR9cQe2WvXb7TnLp0sYh1');
    expect(jobStarter({ keyId: 'usr_Zq81LkVb3mNc5XwT0pRs9a' })).toBe('user:usr_Zq81LkVb3mNc5XwT0pRs9a');
    expect(jobStarter({ keyId: 'cli_7GhT2pLq9WzXc4VbN1mKs0' })).toBe('m2m:cli_7GhT2pLq9WzXc4VbN1mKs0');
    expect(jobStarter({ keyId: OPERATOR_CREDENTIAL_ID })).toBe('operator');
  });
});
