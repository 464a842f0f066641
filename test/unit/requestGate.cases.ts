import { createCipheriv, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { requirePrincipal, ROUTER_OPTIONS } from '../../api/app';
import { MAX_BODY_DEPTH, nestingExceeds } from '../../api/jsonBody';
import { problemDocuments } from '../../api/middleware/problemDocuments';
import { openSecret, sealingKeyId, sealSecret } from '../../core/crypto/secretBox';
import { AddressBlocks, addressCapName, clientAddressBucket } from '../../core/limits/clientAddressLimits';
import { requestLogging } from '../../api/requestLogger';
import { capturingLogger } from '../support/capturedLogs';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

describe('body nesting depth', () => {
  const arrays = (n: number): unknown => {
    let v: unknown = [];
    for (let i = 1; i < n; i++) v = [v];
    return v;
  };

  test('scalars are depth 0, `{}` and `[]` depth 1, each container adds one', () => {
    for (const scalar of [null, 1, 'x', true, undefined]) expect(nestingExceeds(scalar, 0)).toBe(false);
    expect(nestingExceeds({}, 0)).toBe(true);
    expect(nestingExceeds({}, 1)).toBe(false);
    expect(nestingExceeds({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestingExceeds({ a: [{ b: 1 }] }, 2)).toBe(true);
    expect(nestingExceeds(arrays(MAX_BODY_DEPTH), MAX_BODY_DEPTH)).toBe(false);
    expect(nestingExceeds(arrays(MAX_BODY_DEPTH + 1), MAX_BODY_DEPTH)).toBe(true);
  });

  test('the deepest branch counts, wherever it is', () => {
    expect(nestingExceeds({ a: 1, b: [1, 2, { c: arrays(29) }], d: {} }, 32)).toBe(false);
    expect(nestingExceeds({ a: 1, b: [1, 2, { c: arrays(30) }], d: {} }, 32)).toBe(true);
  });

  test('a nesting far past any stack is checked without recursion', () => {
    const deep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000));
    expect(nestingExceeds(deep, MAX_BODY_DEPTH)).toBe(true);
  });
});

describe('sealed secrets: versioned form under a derived key', () => {
  const master = randomBytes(32);
  const keys = new PurposeKeys(master);

  test('sealing writes v2.<kid>.<iv>.<tag>.<ct>; the kid names the master, not the key', () => {
    const sealed = sealSecret(keys, 'whsec_abc', 'aad:1');
    const parts = sealed.split('.');
    expect(parts).toHaveLength(5);
    expect(parts[0]).toBe('v2');
    expect(parts[1]).toBe(sealingKeyId(keys));
    expect(sealingKeyId(keys)).not.toBe(sealingKeyId(new PurposeKeys(randomBytes(32))));
    expect(Buffer.from(parts[1], 'base64url').length).toBeLessThan(16);
    expect(openSecret(keys, sealed, 'aad:1')).toBe('whsec_abc');
    expect(() => openSecret(keys, sealed, 'aad:2')).toThrow();
  });

  test('the AES key is not the master: the raw master does not open a v2 value', () => {
    const sealed = sealSecret(keys, 'secret', 'aad');
    const [, , iv, tag, ct] = sealed.split('.');
    const legacy = ['v1', iv, tag, ct].join('.');
    expect(() => openSecret(keys, legacy, 'aad')).toThrow();
  });

  /** The form written before key versions: AES-256-GCM under the raw master. */
  function sealV1(key: Buffer, plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  test('values sealed in the v1 form stay readable', () => {
    expect(openSecret(keys, sealV1(master, 'old secret', 'aad'), 'aad')).toBe('old secret');
    expect(() => openSecret(keys, sealV1(master, 'old secret', 'aad'), 'other')).toThrow();
  });

  test('after a rotation, values of both forms sealed under the previous master open; new ones use the new master', () => {
    const previous = randomBytes(32);
    const current = randomBytes(32);
    const v1 = sealV1(previous, 'v1 under previous', 'aad');
    const v2 = sealSecret(new PurposeKeys(previous), 'v2 under previous', 'aad');
    const currentOnly = new PurposeKeys(current);
    const rotating = new PurposeKeys(current, previous);
    expect(() => openSecret(currentOnly, v2, 'aad')).toThrow(/neither SECRETS_ENCRYPTION_KEY nor SECRETS_ENCRYPTION_KEY_PREVIOUS/);
    expect(() => openSecret(currentOnly, v1, 'aad')).toThrow();
    expect(openSecret(rotating, v1, 'aad')).toBe('v1 under previous');
    expect(openSecret(rotating, v2, 'aad')).toBe('v2 under previous');
    // The previous master is the app's own: one app's rotation opens nothing for another.
    expect(() => openSecret(currentOnly, v2, 'aad')).toThrow();
    const fresh = sealSecret(rotating, 'new', 'aad');
    expect(fresh.split('.')[1]).toBe(sealingKeyId(currentOnly));
    expect(() => openSecret(new PurposeKeys(previous), fresh, 'aad')).toThrow();
  });

  test('an unknown form is refused', () => {
    expect(() => openSecret(keys, 'v3.a.b.c.d', 'aad')).toThrow(/unrecognised/);
    expect(() => openSecret(keys, 'v2.a.b.c', 'aad')).toThrow(/unrecognised/);
  });
});

describe('client-address limits', () => {
  test('IPv4 counts per address, IPv6 per /64, IPv4-mapped IPv6 as IPv4', () => {
    expect(clientAddressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressBucket('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientAddressBucket('2001:db8:1:2::ffff')).toBe(clientAddressBucket('2001:db8:1:2:aaaa::1'));
    expect(clientAddressBucket('2001:db8:1:3::1')).not.toBe(clientAddressBucket('2001:db8:1:2::1'));
  });

  test('stored cap names carry a keyed hash of the address, never the address', () => {
    const keys = new PurposeKeys(randomBytes(32));
    const name = addressCapName(keys, 'auth-failures', '203.0.113.7');
    expect(name).toMatch(/^addr:auth-failures:[A-Za-z0-9_-]{22}$/);
    expect(name).not.toContain('203.0.113.7');
    expect(addressCapName(keys, 'auth-failures', '::ffff:203.0.113.7')).toBe(name);
    expect(addressCapName(keys, 'token', '203.0.113.7')).not.toBe(name);
    expect(addressCapName(new PurposeKeys(randomBytes(32)), 'auth-failures', '203.0.113.7')).not.toBe(name);
  });

  test('a replica remembers a block until it ends, and never grows past its bound', () => {
    const blocks = new AddressBlocks(2);
    blocks.block('a', 10, 1_000);
    expect(blocks.retryAfterSeconds('a', 1_000)).toBe(10);
    expect(blocks.retryAfterSeconds('a', 10_500)).toBe(1);
    expect(blocks.retryAfterSeconds('a', 11_000)).toBe(0);
    expect(blocks.retryAfterSeconds('b', 1_000)).toBe(0);
    blocks.block('a', 10, 1_000);
    blocks.block('b', 10, 1_000);
    blocks.block('c', 10, 1_000);
    expect(['a', 'b', 'c'].filter((x) => blocks.retryAfterSeconds(x, 2_000) > 0)).toEqual(['b', 'c']);
  });
});

describe('a handler never runs without a principal', () => {
  test('the guard answers 401 and the handler is not called when nothing authenticated the request', async () => {
    let handled = 0;
    const router = new Router(ROUTER_OPTIONS);
    router.use(requirePrincipal);
    router.get('/v1/whoami', (ctx) => {
      handled += 1;
      ctx.body = { ok: true };
    });
    const app = new Koa();
    app.silent = true;
    const { logger, lines } = capturingLogger();
    app.use(requestLogging(logger));
    app.use(problemDocuments());
    app.use(router.routes());
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1/whoami`);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('missing_api_key');
      expect(handled).toBe(0);
      // A wiring mistake, so the guard says so at error level.
      expect(lines.map((l) => [l.level, l.msg])).toEqual([[50, 'a /v1 route was reached without a principal']]);
    } finally {
      server.close();
    }
  });
});
