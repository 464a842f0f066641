import { request as httpRequest } from 'node:http';
import { PERMISSIONS } from '../../core/keys/permissions';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { rawRequest } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { expectProblemResponse } from '../support/problems';

let srv: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  srv = await startTestApi();
  tenant = await createTenant({ credits: 100 });
});
afterAll(async () => srv.close());

const headers = (extra: Record<string, string> = {}) => ({
  Authorization: `Bearer ${tenant.key}`,
  'Idempotency-Key': `body-test-${Math.random().toString(36).slice(2)}`,
  ...extra,
});

describe('request bodies (SPEC 7.2, 8.1 item 4)', () => {
  test('a body of another media type is 415 unsupported_media_type', async () => {
    const res = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: headers({ 'Content-Type': 'text/plain' }),
      body: 'query=x',
    });
    expectProblemResponse(res, 415, 'unsupported_media_type');
  });

  test('malformed JSON is 400 malformed_body', async () => {
    const res = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: headers({ 'Content-Type': 'application/json' }),
      body: '{"query": ',
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('malformed_body');
  });

  test('65,536 bytes are read; one more byte is 413 body_too_large', async () => {
    const pad = (n: number) => JSON.stringify({ query: 'engineer', pad: 'x'.repeat(n) });
    const base = pad(0).length;
    const exact = pad(65_536 - base);
    expect(Buffer.byteLength(exact)).toBe(65_536);
    const atLimit = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: headers({ 'Content-Type': 'application/json' }),
      body: exact,
    });
    expect(atLimit.status).not.toBe(413);
    const over = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: headers({ 'Content-Type': 'application/json' }),
      body: pad(65_537 - base),
    });
    expect(over.status).toBe(413);
    expect(over.json.code).toBe('body_too_large');
  });

  test('an oversized declared body is refused before it is sent', async () => {
    // Announce 10 MB, send only the first 1 KB, and expect the answer while the rest is unsent.
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL('/v1/candidates/search', srv.url);
      const req = httpRequest(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { ...headers({ 'Content-Type': 'application/json' }), 'Content-Length': String(10 * 1024 * 1024) },
        },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write('{"query":"' + 'x'.repeat(1024));
      setTimeout(() => reject(new Error('no answer while the body was incomplete')), 10_000).unref();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).code).toBe('body_too_large');
  });

  test('a chunked body over the limit is cut off with 413', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL('/v1/candidates/search', srv.url);
      const req = httpRequest(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { ...headers({ 'Content-Type': 'application/json' }), 'Transfer-Encoding': 'chunked' },
        },
        (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
        },
      );
      req.on('error', () => undefined); // the server may close the socket once it has answered
      for (let i = 0; i < 80; i++) req.write('x'.repeat(1024));
      setTimeout(() => reject(new Error('no answer')), 10_000).unref();
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).code).toBe('body_too_large');
  });

  test('an API key inside a body is 400 malformed_authorization', async () => {
    const res = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ query: 'x', api_key: tenant.key }),
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('malformed_authorization');
    expect(res.text).not.toContain(tenant.key);
  });

  test('an API key inside a body is 400 malformed_authorization even for a key without the permission (checked before the 403)', async () => {
    const narrow = await addKey(tenant, [PERMISSIONS.jobsRead]);
    const res = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: headers({ Authorization: `Bearer ${narrow.key}`, 'Content-Type': 'application/json' }),
      body: JSON.stringify({ query: 'x', note: tenant.key }),
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('malformed_authorization');
    expect(res.text).not.toContain(tenant.key);
  });

  test('an organization identifier inside a body is 422 validation_failed naming the field', async () => {
    const res = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ query: 'x', filters: { org_id: tenant.orgId } }),
    });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('validation_failed');
    expect(res.json.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'filters.org_id' })]));
  });
});

/** A chunked POST with no Content-Type, ending with `body` (nothing when undefined). */
function chunkedPostWithoutType(body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL('/v1/candidates/search', srv.url);
    const req = httpRequest(
      { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...headers(), 'Transfer-Encoding': 'chunked' } },
      (r) => {
        let text = '';
        r.on('data', (c) => (text += c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('bodiless POSTs', () => {
  test('an empty chunked POST without a content type is no body, not 415', async () => {
    const res = await chunkedPostWithoutType();
    // The search needs a body: the answer is about the missing body, not the media type.
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).code).toBe('validation_failed');
  });

  test('a non-empty chunked body without a content type is 415', async () => {
    const res = await chunkedPostWithoutType('{"query":"x"}');
    expect(res.status).toBe(415);
  });
});
