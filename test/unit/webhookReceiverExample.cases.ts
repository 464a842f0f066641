import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { rootCertificates } from 'node:tls';
import type { LookupAll } from '../../core/outbound/destinationPolicy';
import { jobCompletedBody } from '../../core/webhooks/eventEnvelope';
import { OutboundConnections } from '../../core/outbound/outboundConnections';
import { sendAttempt, type AttemptOutcome } from '../../core/webhooks/sendAttempt';
import { generateSigningSecret, signedHeaders } from '../../core/webhooks/signPayload';
import { RECEIVER_HOST_NAME, receiverCertificate } from '../support/httpsReceiver';

/**
 * The example receiver (examples/webhookReceiver/receiver.js), served over
 * HTTPS, gets real deliveries: bodies from the event envelope, headers from the platform's
 * signer, sent by the platform's own sender (core/webhooks/sendAttempt.ts).
 */
const { createReceiver, describeResult } = require('../../examples/webhookReceiver/receiver.js') as {
  describeResult: (result: unknown) => string;
  createReceiver: (opts: {
    secret: string;
    onEvent: (event: unknown, id: string) => unknown;
    log?: { error: (m: string) => void };
  }) => Parameters<typeof createServer>[1];
};

const secret = generateSigningSecret();
const processed: Array<{ id: string; event: { type: string; data: { job_id: string; status: string } } }> = [];
let slowProcessing: Promise<void> | undefined;
let server: Server;
let url: string;
let ca: string[];
const connections = new OutboundConnections();

const lookupAll: LookupAll = async () => [{ address: '127.0.0.1', family: 4 }];
const counts = { requested: 2, delivered: 1, not_found: 1, failed: 0, reused: 0, cancelled: 0, pending: 0 };

function delivery(eventId: string, secrets: string[], at = new Date()) {
  const body = jobCompletedBody({
    eventId,
    emittedAt: at,
    jobId: `job_${eventId}`,
    status: 'completed',
    counts,
    resultExpiresAt: new Date(at.getTime() + 7 * 86_400_000),
  });
  return { body, headers: { ...signedHeaders(secrets, eventId, at, body) } as Record<string, string> };
}

function send(d: { body: string; headers: Record<string, string> }): Promise<AttemptOutcome> {
  return sendAttempt({ url, headers: d.headers, body: d.body }, { connections, lookupAll, allowedCidrs: ['127.0.0.0/8'], ca });
}

beforeAll(async () => {
  const { cert, key } = await receiverCertificate();
  ca = [...rootCertificates, cert];
  const handler = createReceiver({
    secret,
    onEvent: (event, id) => {
      processed.push({ id, event: event as (typeof processed)[number]['event'] });
      return slowProcessing;
    },
    log: { error: () => undefined },
  });
  server = createServer({ cert, key }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://${RECEIVER_HOST_NAME}:${(server.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  connections.close();
  await new Promise((resolve) => server.close(resolve));
});

// The example processes an event after answering; a pause (not a probe) is what lets a test see
// that a retry was not processed a second time, an absence no condition can be awaited for.
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

test('a signed job.completed is verified, answered 204 and processed once', async () => {
  const out = await send(delivery('evt_receiverExample0001', [secret]));
  expect(out).toMatchObject({ ok: true, responseStatus: 204 });
  await settle();
  expect(processed).toEqual([
    {
      id: 'evt_receiverExample0001',
      event: expect.objectContaining({ type: 'job.completed', data: expect.objectContaining({ job_id: 'job_evt_receiverExample0001', status: 'completed' }) }),
    },
  ]);
});

test('a retry of the same event (same webhook-id, new timestamp and signature) is acknowledged but not processed again', async () => {
  const retry = await send(delivery('evt_receiverExample0001', [secret], new Date(Date.now() + 1000)));
  expect(retry).toMatchObject({ ok: true, responseStatus: 200 });
  await settle();
  expect(processed.filter((p) => p.id === 'evt_receiverExample0001')).toHaveLength(1);
});

test('during a secret rotation the delivery carries two signatures; the receiver holding either accepts it', async () => {
  const successor = generateSigningSecret();
  const out = await send(delivery('evt_receiverExample0002', [successor, secret]));
  expect(out).toMatchObject({ ok: true, responseStatus: 204 });
});

test.each([
  ["another endpoint's secret", () => delivery('evt_receiverExample0003', [generateSigningSecret()])],
  [
    'an altered body',
    () => {
      const d = delivery('evt_receiverExample0004', [secret]);
      return { ...d, body: d.body.replace('"completed"', '"failed"') };
    },
  ],
  ['a timestamp ten minutes old', () => delivery('evt_receiverExample0005', [secret], new Date(Date.now() - 10 * 60_000))],
  [
    'no signature',
    () => {
      const d = delivery('evt_receiverExample0006', [secret]);
      delete d.headers['webhook-signature'];
      return d;
    },
  ],
])('%s is refused 400 and not processed', async (_name, make) => {
  const d = make();
  const before = processed.length;
  const out = await send(d);
  expect(out).toMatchObject({ ok: false, errorCode: 'http_status', responseStatus: 400 });
  await settle();
  expect(processed.length).toBe(before);
});

test('the answer does not wait for slow processing', async () => {
  let finish!: () => void;
  slowProcessing = new Promise<void>((resolve) => (finish = resolve));
  const out = await send(delivery('evt_receiverExample0007', [secret]));
  expect(out).toMatchObject({ ok: true, responseStatus: 204 });
  expect(out.durationMs).toBeLessThan(2000);
  await settle();
  expect(processed.map((p) => p.id)).toContain('evt_receiverExample0007');
  finish();
  slowProcessing = undefined;
});

test("a job result's people are counted from its items, by outcome", () => {
  const item = (outcome: string) => ({ person_id: 'per_1', outcome, contacts: { emails: [], phones: [] }, receipt_id: null, reason: null });
  expect(describeResult({ job_id: 'job_1', items: [item('delivered'), item('delivered'), item('not_found')], next_cursor: null })).toBe(
    '3 people (2 delivered, 1 not_found)',
  );
  expect(describeResult({ items: [item('reused')], next_cursor: 'c1' })).toBe('1 person (1 reused), more pages follow');
  expect(describeResult({ type: 'about:blank', code: 'result_set_expired' })).toBe('no result (result_set_expired)');
});

test('run on its own it listens on loopback unless told otherwise', async () => {
  const child = spawn(process.execPath, [require.resolve('../../examples/webhookReceiver/receiver.js')], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(line).toMatch(/^receiving webhooks on http:\/\/127\.0\.0\.1:\d+\/$/);
  } finally {
    child.kill();
  }
});
