import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { LookupAll } from '../../core/outbound/destinationPolicy';
import { OutboundConnections } from '../../core/outbound/outboundConnections';
import { MAX_RESPONSE_BYTES, sendAttempt } from '../../core/webhooks/sendAttempt';
import { RECEIVER_HOST_NAME, startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';

/** One attempt against a real HTTPS receiver on loopback: every failure is an outcome, never a throw. */
let receiver: HttpsReceiver;
let ca: string[];
const connections = new OutboundConnections();

const lookupAll: LookupAll = async (host) => {
  if (host === RECEIVER_HOST_NAME || host === 'wrong-name.test') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'private.test') return [{ address: '10.1.2.3', family: 4 }];
  throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
};
const allowed = ['127.0.0.0/8'];
const req = (url: string) => ({ url, headers: { 'content-type': 'application/json', 'webhook-id': 'evt_t' }, body: '{"a":1}' });

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  ca = [...rootCertificates, readFileSync(receiver.caFile, 'utf8')];
});
afterAll(async () => {
  connections.close();
  await receiver.close();
});

test('2xx is success; the exact body bytes arrive', async () => {
  receiver.respond(() => ({ status: 202 }));
  const out = await sendAttempt(req(`${receiver.url}/ok`), { connections, lookupAll, allowedCidrs: allowed, ca });
  expect(out).toMatchObject({ ok: true, responseStatus: 202, address: '127.0.0.1' });
  expect(receiver.requests.at(-1)?.body).toBe('{"a":1}');
});

test('a host name is pinned to its approved address and TLS is verified for the name', async () => {
  receiver.respond(() => ({ status: 200 }));
  const ok = await sendAttempt(req(`https://${RECEIVER_HOST_NAME}:${receiver.port}/named`), { connections, lookupAll, allowedCidrs: allowed, ca });
  expect(ok).toMatchObject({ ok: true, address: '127.0.0.1' });
  expect(receiver.requests.at(-1)?.headers.host).toBe(`${RECEIVER_HOST_NAME}:${receiver.port}`);
  // same address, but the certificate does not name this host
  const before = receiver.requests.length;
  const wrong = await sendAttempt(req(`https://wrong-name.test:${receiver.port}/named`), { connections, lookupAll, allowedCidrs: allowed, ca });
  expect(wrong).toMatchObject({ ok: false, errorCode: 'tls_error' });
  expect(receiver.requests.length).toBe(before);
});

test('an untrusted certificate is a tls_error (no extra CA: system roots only)', async () => {
  const out = await sendAttempt(req(`${receiver.url}/untrusted`), { connections, lookupAll, allowedCidrs: allowed });
  expect(out).toMatchObject({ ok: false, errorCode: 'tls_error', responseStatus: null });
});

test('a redirect is a failure and is not followed; 4xx/5xx are http_status', async () => {
  receiver.respond((r) => (r.path === '/moved' ? { status: 307, headers: { Location: '/target' } } : r.path === '/gone' ? { status: 410 } : { status: 500 }));
  expect(await sendAttempt(req(`${receiver.url}/moved`), { connections, lookupAll, allowedCidrs: allowed, ca })).toMatchObject({
    ok: false,
    errorCode: 'redirect',
    responseStatus: 307,
  });
  expect(receiver.requests.some((r) => r.path === '/target')).toBe(false);
  expect(await sendAttempt(req(`${receiver.url}/gone`), { connections, lookupAll, allowedCidrs: allowed, ca })).toMatchObject({
    ok: false,
    errorCode: 'http_status',
    responseStatus: 410,
  });
  expect(await sendAttempt(req(`${receiver.url}/err`), { connections, lookupAll, allowedCidrs: allowed, ca })).toMatchObject({
    ok: false,
    errorCode: 'http_status',
    responseStatus: 500,
  });
});

test('a receiver that never answers times out', async () => {
  receiver.respond(() => 'hang');
  const out = await sendAttempt(req(`${receiver.url}/hang`), { connections, lookupAll, allowedCidrs: allowed, ca, timeoutMs: 400 });
  expect(out).toMatchObject({ ok: false, errorCode: 'timeout' });
  expect(out.durationMs).toBeGreaterThanOrEqual(390);
  expect(out.durationMs).toBeLessThan(5000);
});

test('a huge response body is not read past the limit', async () => {
  receiver.respond(() => ({ status: 200, body: 'x'.repeat(MAX_RESPONSE_BYTES * 16) }));
  const out = await sendAttempt(req(`${receiver.url}/big`), { connections, lookupAll, allowedCidrs: allowed, ca });
  expect(out).toMatchObject({ ok: true, responseStatus: 200 });
});

test('refused destinations are never connected to; unknown names are dns_error', async () => {
  const before = receiver.requests.length;
  expect(await sendAttempt(req(`${receiver.url}/x`), { connections, lookupAll, allowedCidrs: [], ca })).toMatchObject({
    ok: false,
    errorCode: 'destination_refused',
    address: null,
  });
  expect(await sendAttempt(req(`https://private.test:${receiver.port}/x`), { connections, lookupAll, allowedCidrs: allowed, ca })).toMatchObject({
    ok: false,
    errorCode: 'destination_refused',
  });
  expect(await sendAttempt(req(`https://nowhere.test:${receiver.port}/x`), { connections, lookupAll, allowedCidrs: allowed, ca })).toMatchObject({
    ok: false,
    errorCode: 'dns_error',
  });
  expect(receiver.requests.length).toBe(before);
});

test('a closed port is connection_refused', async () => {
  const gone = await startHttpsReceiver();
  const url = gone.url;
  await gone.close();
  expect(await sendAttempt(req(`${url}/x`), { connections, lookupAll, allowedCidrs: allowed, ca })).toMatchObject({
    ok: false,
    errorCode: 'connection_refused',
  });
});
