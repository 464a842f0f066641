import { randomBytes } from 'node:crypto';
import { jobCompletedBody } from '../../core/webhooks/eventEnvelope';
import { liveSecrets, mintSecret, openSecrets, ROTATION_OVERLAP_MS, rotatedSecrets } from '../../core/webhooks/webhookSecrets';
import { retryAfterSeconds } from '../../core/webhooks/replayAllowance';
import { decodeCursor, encodeCursor, endpointListScope } from '../../core/webhooks/deliveryCursor';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

const counts = { requested: 3, delivered: 1, not_found: 1, failed: 0, reused: 1, cancelled: 0, pending: 0 };

describe('job.completed envelope (SPEC 2.5)', () => {
  test('has exactly the spec fields, in a fixed order', () => {
    const body = jobCompletedBody({
      eventId: 'evt_1',
      emittedAt: new Date('2026-01-02T03:04:05.678Z'),
      jobId: 'job_9',
      status: 'partial',
      counts,
      resultExpiresAt: new Date('2026-01-09T03:04:05.000Z'),
    });
    expect(body).toBe(
      '{"type":"job.completed","id":"evt_1","timestamp":"2026-01-02T03:04:05.678Z","data":{"job_id":"job_9","type":"contact_retrieval","status":"partial",' +
        '"counts":{"requested":3,"delivered":1,"not_found":1,"failed":0,"reused":1,"cancelled":0,"pending":0},' +
        '"result_url":"/v1/job-results/job_9","result_expires_at":"2026-01-09T03:04:05.000Z"}}',
    );
  });

  test('omits result_expires_at when the job carries no result, and carries nothing but the seven counts', () => {
    const sneaky = { ...counts, person_ids: ['per_1'], email: 'a@b.c' } as unknown as typeof counts;
    const body = JSON.parse(
      jobCompletedBody({ eventId: 'evt_2', emittedAt: new Date(), jobId: 'job_1', status: 'failed', counts: sneaky, resultExpiresAt: null }),
    );
    expect(body.data).not.toHaveProperty('result_expires_at');
    expect(Object.keys(body.data.counts)).toEqual(['requested', 'delivered', 'not_found', 'failed', 'reused', 'cancelled', 'pending']);
    expect(JSON.stringify(body)).not.toMatch(/per_1|a@b\.c/);
  });
});

describe('signing secrets at rest and rotation (SPEC 6.3)', () => {
  const key = new PurposeKeys(randomBytes(32));
  const t0 = new Date('2026-01-01T00:00:00Z');

  test('sealed secrets open only for their own endpoint and never contain the plaintext', () => {
    const { stored, plaintext } = mintSecret(key, 'we_a', t0);
    expect(stored.sealed).not.toContain(plaintext.slice(6, 20));
    expect(openSecrets(key, 'we_a', [stored])).toEqual([plaintext]);
    expect(() => openSecrets(key, 'we_b', [stored])).toThrow();
    expect(() => openSecrets(new PurposeKeys(randomBytes(32)), 'we_a', [stored])).toThrow();
  });

  test('after a rotation two secrets sign for exactly 24 h, then one', () => {
    const first = mintSecret(key, 'we_a', t0).stored;
    const t1 = new Date(t0.getTime() + 3600_000);
    const second = mintSecret(key, 'we_a', t1).stored;
    const after = rotatedSecrets([first], second, t1);
    expect(after).toHaveLength(2);
    expect(after[1].expiresAt?.getTime()).toBe(t1.getTime() + ROTATION_OVERLAP_MS);
    expect(liveSecrets(after, new Date(t1.getTime() + ROTATION_OVERLAP_MS - 1)).map((s) => s.secretId)).toEqual([second.secretId, first.secretId]);
    expect(liveSecrets(after, new Date(t1.getTime() + ROTATION_OVERLAP_MS)).map((s) => s.secretId)).toEqual([second.secretId]);
    // the next rotation drops the expired predecessor: never more than two
    const t2 = new Date(t1.getTime() + ROTATION_OVERLAP_MS + 1);
    const third = mintSecret(key, 'we_a', t2).stored;
    expect(rotatedSecrets(after, third, t2).map((s) => s.secretId)).toEqual([third.secretId, second.secretId]);
  });
});

describe('replay allowance and cursors', () => {
  test('Retry-After is when the oldest replay leaves the trailing hour', () => {
    const now = new Date('2026-01-01T01:00:00Z');
    const uses = [new Date('2026-01-01T00:20:00Z'), new Date('2026-01-01T00:50:00Z')];
    expect(retryAfterSeconds(uses, now)).toBe(20 * 60);
    expect(retryAfterSeconds([new Date(now.getTime() - 3600_000)], now)).toBe(1);
  });

  test('cursors round-trip and garbage is 400 invalid_cursor', () => {
    const pos = { createdAt: new Date('2026-01-01T00:00:00.123Z'), id: 'dlv_abc' };
    const key = new PurposeKeys(randomBytes(32));
    const list = endpointListScope('ws_a');
    expect(decodeCursor(key, list, encodeCursor(key, list, pos))).toEqual(pos);
    expect(decodeCursor(key, list, undefined)).toBeUndefined();
    expect(() => decodeCursor(key, endpointListScope('ws_b'), encodeCursor(key, list, pos))).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
    for (const bad of ['!!', 'abc', Buffer.from('{"t":"x","i":1}').toString('base64url')]) {
      expect(() => decodeCursor(key, list, bad)).toThrow(expect.objectContaining({ code: 'invalid_cursor', status: 400 }));
    }
  });
});
