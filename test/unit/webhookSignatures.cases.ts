import { Webhook } from 'standardwebhooks';
import { generateSigningSecret, SECRET_PREFIX, signatureCandidate, signatureHeader, signedHeaders, verifySignature } from '../../core/webhooks/signPayload';

// The published Standard Webhooks test vector (reference implementations' test suites).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('webhook signatures (SPEC 6.2)', () => {
  test('reproduce the Standard Webhooks test vector exactly', () => {
    expect(signatureCandidate(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(signatureCandidate(VECTOR.secret, VECTOR.id, VECTOR.timestamp, Buffer.from(VECTOR.body))).toBe(VECTOR.signature);
  });

  test('the vector verifies, and any change to id, timestamp, body or secret does not', () => {
    expect(verifySignature(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body, VECTOR.signature)).toBe(true);
    expect(verifySignature(VECTOR.secret, 'msg_other', VECTOR.timestamp, VECTOR.body, VECTOR.signature)).toBe(false);
    expect(verifySignature(VECTOR.secret, VECTOR.id, VECTOR.timestamp + 1, VECTOR.body, VECTOR.signature)).toBe(false);
    expect(verifySignature(VECTOR.secret, VECTOR.id, VECTOR.timestamp, '{"test": 2432232315}', VECTOR.signature)).toBe(false);
    expect(verifySignature(generateSigningSecret(), VECTOR.id, VECTOR.timestamp, VECTOR.body, VECTOR.signature)).toBe(false);
  });

  test('the standardwebhooks package signs what we sign', () => {
    const wh = new Webhook(VECTOR.secret);
    expect(wh.sign(VECTOR.id, new Date(VECTOR.timestamp * 1000), VECTOR.body)).toBe(VECTOR.signature);
    for (let i = 0; i < 20; i++) {
      const secret = generateSigningSecret();
      const body = JSON.stringify({ type: 'job.completed', n: i, s: 'ünïcødé' });
      const at = new Date(1_700_000_000_000 + i * 7919_000);
      expect(signatureCandidate(secret, `evt_${i}`, Math.floor(at.getTime() / 1000), body)).toBe(new Webhook(secret).sign(`evt_${i}`, at, body));
    }
  });

  test('the standardwebhooks package verifies our headers, with either secret while two sign', () => {
    const oldSecret = generateSigningSecret();
    const newSecret = generateSigningSecret();
    const body = '{"type":"job.completed","id":"evt_x"}';
    const headers = signedHeaders([newSecret, oldSecret], 'evt_x', new Date(), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['webhook-id']).toBe('evt_x');
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSigningSecret()).verify(body, { ...headers })).toThrow();
  });

  test('a receiver accepts when any candidate matches', () => {
    const a = generateSigningSecret();
    const b = generateSigningSecret();
    const header = signatureHeader([a, b], 'evt_1', 1700000000, 'x');
    expect(verifySignature(a, 'evt_1', 1700000000, 'x', header)).toBe(true);
    expect(verifySignature(b, 'evt_1', 1700000000, 'x', header)).toBe(true);
    expect(verifySignature(b, 'evt_1', 1700000000, 'x', 'v1,AAAA ' + header.split(' ')[1])).toBe(true);
  });

  test('secrets are whsec_ + base64 of at least 24 random bytes, all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const s = generateSigningSecret();
      expect(s.startsWith(SECRET_PREFIX)).toBe(true);
      const payload = s.slice(SECRET_PREFIX.length);
      expect(payload).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(payload, 'base64').length).toBeGreaterThanOrEqual(24);
      seen.add(s);
    }
    expect(seen.size).toBe(50);
  });
});
