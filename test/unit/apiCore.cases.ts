import { displayPrefix, generateApiKey, parseApiKey } from '../../core/keys/apiKeyFormat';
import { Problem, PROBLEM_CODES, retryLater } from '../../core/problems';
import { isValidIdempotencyKey } from '../../api/operations/idempotentRun';
import { isValidRequestId } from '../../api/middleware/requestId';
import { problemDocument } from '../../api/middleware/problemDocuments';
import { findTenantFields } from '../../api/operations/operationInput';
import { openSecret, sealSecret } from '../../core/crypto/secretBox';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

describe('API keys', () => {
  test('live keys have the ext prefix and 40 base62 characters', () => {
    const k = generateApiKey('live');
    expect(k).toMatch(/^sk_live_ext_[0-9A-Za-z]{40}$/);
    expect(parseApiKey(k)).toEqual({ environment: 'live' });
    expect(parseApiKey(generateApiKey('test'))).toEqual({ environment: 'test' });
    expect(generateApiKey('live')).not.toBe(k);
  });
  test.each(['', 'sk_live_ext_short', 'pk_live_ext_' + 'a'.repeat(40), 'sk_live_' + 'a'.repeat(40), 'sk_prod_ext_' + 'a'.repeat(40)])(
    '%s is not a key',
    (v) => {
      expect(parseApiKey(v)).toBeNull();
    },
  );
  test('the display prefix reveals four characters of the secret part at most', () => {
    const k = generateApiKey('live');
    expect(displayPrefix(k)).toBe(k.slice(0, 16));
  });
});

describe('problem documents', () => {
  test('shape per SPEC 7.1', () => {
    const doc = problemDocument(new Problem('not_found', 'nope'), 'req_1');
    expect(doc).toEqual({
      type: 'urn:service:developer-api:problem:not_found',
      title: 'Not found',
      status: 404,
      detail: 'nope',
      code: 'not_found',
      request_id: 'req_1',
      instance: 'urn:service:developer-api:request:req_1',
    });
  });
  test('every 429 is private, no-store and carries Retry-After', () => {
    const p = retryLater('contact_job_concurrency_cap', 'two running', 30);
    expect(p.status).toBe(429);
    expect(p.headers).toEqual({ 'Retry-After': '30', 'Cache-Control': 'private, no-store' });
    expect(retryLater('rate_limited', 'x', 0.2).headers['Retry-After']).toBe('1');
  });
  test('spec codes map to spec statuses', () => {
    const expected: Record<string, number> = {
      insufficient_scope: 403,
      insufficient_credits: 402,
      family_budget_exhausted: 402,
      organization_budget_exhausted: 402,
      rate_limited: 429,
      contact_job_concurrency_cap: 429,
      webhook_replay_cap: 429,
      preview_quota_exceeded: 429,
      distinct_query_cap: 429,
      delivery_quota_exceeded: 429,
      endpoint_limit_reached: 409,
      result_set_expired: 409,
      webhook_url_not_allowed: 422,
    };
    for (const [code, status] of Object.entries(expected)) expect(PROBLEM_CODES[code as keyof typeof PROBLEM_CODES].status).toBe(status);
  });
});

describe('header syntax', () => {
  test.each([
    ['abcdefgh', true],
    ['0f8fad5b-d9cb-469f-a165-70867728950e', true],
    ['a'.repeat(128), true],
    ['a.b_c:d-e', true],
    ['short', false],
    ['a'.repeat(129), false],
    ['-abcdefgh', false],
    ['abc defgh', false],
    ['abcdefg/', false],
    ['', false],
  ])('Idempotency-Key %s → %s', (key, ok) => expect(isValidIdempotencyKey(key)).toBe(ok));
  test.each([
    ['a', true],
    ['x'.repeat(128), true],
    ['x'.repeat(129), false],
    ['a b', false],
    ['a/b', false],
  ])('X-Request-Id %s → %s', (id, ok) => expect(isValidRequestId(id)).toBe(ok));
});

describe('tenant identifiers in bodies', () => {
  test('found at any depth and named by path', () => {
    expect(findTenantFields({ query: 'x', filters: [{ org_id: 'o' }], meta: { nested: { Workspace_Id: 'w' } } }).map((e) => e.field)).toEqual([
      'filters[0].org_id',
      'meta.nested.Workspace_Id',
    ]);
    expect(findTenantFields({ query: 'org_id' })).toEqual([]);
  });
});

describe('secret box', () => {
  const key = new PurposeKeys(Buffer.alloc(32, 1));
  test('round-trips and binds to its record', () => {
    const sealed = sealSecret(key, 'whsec_abc', 'endpoint:we_1');
    expect(sealed).not.toContain('whsec_abc');
    expect(openSecret(key, sealed, 'endpoint:we_1')).toBe('whsec_abc');
    expect(() => openSecret(key, sealed, 'endpoint:we_2')).toThrow();
    expect(() => openSecret(new PurposeKeys(Buffer.alloc(32, 2)), sealed, 'endpoint:we_1')).toThrow();
  });
});
