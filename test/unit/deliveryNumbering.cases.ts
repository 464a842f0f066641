import { randomBytes } from 'node:crypto';
import { comesAfter, decodeDeliveryCursor, encodeDeliveryCursor, listOrder } from '../../core/webhooks/deliveryCursor';
import { advance, deliveryIdOf, MAX_SCANNED_PER_PAGE, nextBelow, nextWindow, walkFrom, WINDOW, type Walk } from '../../core/webhooks/deliveryNumbering';
import { healthCountsOfAttempt, healthHours, HEALTH_WINDOW_MS } from '../../core/webhooks/webhookHealth';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

/** Every window a walk reads until it ends, when no read finds anything. */
function windowsOfEmptyWalk(top: number, wanted: number): number[][] {
  const windows: number[][] = [];
  let walk: Walk = walkFrom(top);
  for (let w = nextWindow(walk, wanted); w.length; w = nextWindow(walk, wanted)) {
    windows.push(w);
    walk = advance(walk, w);
  }
  return windows;
}

describe('the walk down the delivery numbers', () => {
  test('a delivery id carries its workspace and number', () => {
    expect(deliveryIdOf('ws_abc', 42)).toBe('dlv_abc_42');
    expect(deliveryIdOf('ws_abc', 42)).not.toBe(deliveryIdOf('ws_abd', 42));
  });

  test('a page first reads its own numbers and one more, highest first', () => {
    expect(nextWindow(walkFrom(100), 21)).toEqual(Array.from({ length: 21 }, (_, i) => 100 - i));
  });

  test('a page that found few rows reads as many again as it has read, up to a window', () => {
    expect(nextWindow({ top: 10_000, scanned: 21 }, 15)).toHaveLength(21);
    expect(nextWindow({ top: 10_000, scanned: 84 }, 15)).toHaveLength(84);
    expect(nextWindow({ top: 10_000, scanned: 1000 }, 15)).toHaveLength(WINDOW);
    expect(nextWindow({ top: 10_000, scanned: MAX_SCANNED_PER_PAGE - 10 }, 15)).toHaveLength(10);
  });

  test('the walk never reads below 1, and ends there', () => {
    expect(nextWindow(walkFrom(5), 21)).toEqual([5, 4, 3, 2, 1]);
    expect(nextWindow(walkFrom(0), 21)).toEqual([]);
    expect(windowsOfEmptyWalk(7, 3).flat()).toEqual([7, 6, 5, 4, 3, 2, 1]);
  });

  test('over holes the reads grow, and no page reads more than its budget', () => {
    const windows = windowsOfEmptyWalk(1_000_000, 21);
    const sizes = windows.map((w) => w.length);
    expect(sizes.slice(0, 4)).toEqual([21, 21, 42, 84]);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(WINDOW);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(MAX_SCANNED_PER_PAGE);
    expect(windows.length).toBeLessThan(20);
    // Contiguous: nothing skipped, nothing read twice.
    expect(windows.flat()).toEqual(Array.from({ length: MAX_SCANNED_PER_PAGE }, (_, i) => 1_000_000 - i));
  });

  test('the next page starts below the last row shown, or below what was read', () => {
    expect(nextBelow([50, 49, 47, 46], 3, { top: 40, scanned: 11 })).toBe(46);
    expect(nextBelow([50, 49], 3, { top: 40, scanned: 11 })).toBe(40);
    expect(nextBelow([2, 1], 3, { top: 0, scanned: 2 })).toBe(0);
    expect(nextBelow([], 3, { top: -5, scanned: 2 })).toBe(0);
  });
});

describe('delivery cursors', () => {
  const t = new Date('2026-11-25T12:00:00.000Z');
  const key = new PurposeKeys(randomBytes(32));

  test('a numbered position round-trips under its own filters only', () => {
    const c = encodeDeliveryCursor(key, 'ws_a:we_a:failed::', { below: 41 });
    expect(decodeDeliveryCursor(key, 'ws_a:we_a:failed::', c)).toEqual({ below: 41 });
    expect(() => decodeDeliveryCursor(key, 'ws_a::::', c)).toThrow(expect.objectContaining({ code: 'invalid_cursor', status: 400 }));
  });

  test('a position among records from before the numbering round-trips under its own workspace and filters only', () => {
    const c = encodeDeliveryCursor(key, 'ws_a:we_a:::', { before: { createdAt: t, id: 'dlv_old' } });
    expect(decodeDeliveryCursor(key, 'ws_a:we_a:::', c)).toEqual({ before: { createdAt: t, id: 'dlv_old' } });
    expect(() => decodeDeliveryCursor(key, 'ws_b:we_a:::', c)).toThrow(expect.objectContaining({ code: 'invalid_cursor', status: 400 }));
  });

  test('forged numbers are invalid_cursor', () => {
    const forged = (p: string) => Buffer.from(`{"s":"webhook_deliveries:n::::","p":${p}}`).toString('base64url');
    for (const p of ['{"below":-1}', '{"below":1.5}', '{"below":"3"}', '{}', '{"below":1e300}']) {
      expect(() => decodeDeliveryCursor(key, ':::', forged(p))).toThrow(expect.objectContaining({ code: 'invalid_cursor', status: 400 }));
    }
  });

  test('numbered records come first, highest first, then the older ones newest first', () => {
    const rec = (id: string, seq: number | null, ms: number) => ({ _id: id, seq, createdAt: new Date(t.getTime() + ms) });
    const records = [rec('dlv_x', null, -5), rec('dlv_a_2', 2, 0), rec('dlv_y', null, -1), rec('dlv_a_10', 10, -3), rec('dlv_z', null, -1)];
    expect([...records].sort(listOrder).map((r) => r._id)).toEqual(['dlv_a_10', 'dlv_a_2', 'dlv_z', 'dlv_y', 'dlv_x']);
    expect(records.filter((r) => comesAfter(r, { below: 9 })).map((r) => r._id)).toEqual(['dlv_x', 'dlv_a_2', 'dlv_y', 'dlv_z']);
    expect(records.filter((r) => comesAfter(r, { before: { createdAt: new Date(t.getTime() - 1), id: 'dlv_z' } })).map((r) => r._id)).toEqual([
      'dlv_x',
      'dlv_y',
    ]);
  });
});

describe('webhook health counters', () => {
  test('failed and dead-lettered attempts count, successes do not', () => {
    expect(healthCountsOfAttempt('failed')).toEqual({ failed: 1 });
    expect(healthCountsOfAttempt('dead_lettered')).toEqual({ deadLettered: 1 });
    expect(healthCountsOfAttempt('succeeded')).toEqual({});
  });

  test('the 7-day window is the hours it touches: 169 rows, oldest first, the current hour last', () => {
    const now = new Date('2026-11-25T12:34:56.000Z');
    const hours = healthHours(now);
    expect(hours).toHaveLength(169);
    expect(hours[0]).toBe(Date.parse('2026-11-18T12:00:00.000Z'));
    expect(hours[hours.length - 1]).toBe(Date.parse('2026-11-25T12:00:00.000Z'));
    expect(hours[0]).toBeLessThanOrEqual(now.getTime() - HEALTH_WINDOW_MS);
  });
});
