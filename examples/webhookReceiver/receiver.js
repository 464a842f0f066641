'use strict';
/**
 * A receiver for the talent platform's webhooks (`job.completed`), with the Standard Webhooks
 * library: it verifies every delivery, processes each event once (deduplicating on
 * `webhook-id`: retries and replays carry the same id) and answers 2xx before doing the work,
 * so the sender never times out waiting for it.
 *
 *   WEBHOOK_SECRET=whsec_… node receiver.js
 *
 * Environment: WEBHOOK_SECRET (required, the `secret` shown when the endpoint was created or
 * its secret rotated), PORT (3000), HOST (127.0.0.1: only this machine can reach it; set 0.0.0.0
 * or :: to accept deliveries from elsewhere), TLS_CERT_FILE and TLS_KEY_FILE (serve HTTPS yourself;
 * without them put it behind a TLS-terminating proxy: the platform delivers to HTTPS URLs only),
 * API_KEY and API_BASE_URL (optional: then each event's result is fetched and summarised).
 */
const { createServer: createHttpServer } = require('node:http');
const { createServer: createHttpsServer } = require('node:https');
const { readFileSync } = require('node:fs');
const { Webhook } = require('standardwebhooks');

/** Events are a few hundred bytes; anything far larger is not ours. */
const MAX_BODY_BYTES = 256 * 1024;
/**
 * Longer than an event can come back: retries run for about 21 hours, and a dead-lettered event
 * can be replayed for 7 days after that; a late retry or replay is still recognised.
 */
const REMEMBER_MS = 9 * 24 * 3600 * 1000;

/**
 * Event ids already accepted, in memory. With more than one process, or to survive restarts,
 * use a unique index in your database instead (insert the id; a duplicate-key error means seen).
 */
class SeenEvents {
  constructor(rememberMs = REMEMBER_MS, max = 100_000) {
    this.rememberMs = rememberMs;
    this.max = max;
    this.ids = new Map();
  }

  /** True the first time an id is offered, false afterwards. */
  firstTime(id, now = Date.now()) {
    for (const [seenId, at] of this.ids) {
      if (now - at < this.rememberMs && this.ids.size < this.max) break;
      this.ids.delete(seenId); // oldest first: a Map keeps insertion order
    }
    if (this.ids.has(id)) return false;
    this.ids.set(id, now);
    return true;
  }
}

function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * The request handler. `onEvent(event, webhookId)` runs after the answer was sent; it may be
 * slow. Answers: 204 accepted, 200 duplicate (already accepted), 400 not verified (wrong
 * secret, altered body or a timestamp more than 5 minutes away), 405, 413.
 */
function createReceiver({ secret, onEvent, seen = new SeenEvents(), log = console }) {
  const webhook = new Webhook(secret);
  return async function handle(req, res) {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    let body;
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch {
      res.writeHead(413).end();
      return;
    }
    const headers = {
      'webhook-id': req.headers['webhook-id'],
      'webhook-timestamp': req.headers['webhook-timestamp'],
      'webhook-signature': req.headers['webhook-signature'],
    };
    let event;
    try {
      // Verifies the raw body exactly as received: parse only what verify returns.
      event = webhook.verify(body, headers);
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('signature not verified');
      return;
    }
    if (!seen.firstTime(headers['webhook-id'])) {
      res.writeHead(200).end();
      return;
    }
    res.writeHead(204).end();
    setImmediate(() => {
      Promise.resolve()
        .then(() => onEvent(event, headers['webhook-id']))
        .catch((err) => log.error(`processing ${headers['webhook-id']} failed: ${err && err.message}`));
    });
  };
}

/** What this example does with an event: print it, and read the job's result when it has a key. */
async function printEvent(event, webhookId) {
  console.log(`${webhookId} ${event.type} job ${event.data.job_id}: ${event.data.status}`, JSON.stringify(event.data.counts));
  const { API_KEY, API_BASE_URL } = process.env;
  if (!API_KEY || !API_BASE_URL || event.type !== 'job.completed') return;
  const res = await fetch(new URL(event.data.result_url, API_BASE_URL), { headers: { Authorization: `Bearer ${API_KEY}` } });
  console.log(`result of ${event.data.job_id}: HTTP ${res.status}, ${describeResult(await res.json())}`);
}

/**
 * One line about a page of `GET /v1/job-results/{job_id}`: its people (`items`) by outcome, and
 * whether more pages follow (`next_cursor`). A problem document is shown by its code.
 */
function describeResult(result) {
  if (!result || !Array.isArray(result.items)) return `no result (${(result && (result.code || result.title)) || 'unexpected body'})`;
  const outcomes = {};
  for (const item of result.items) outcomes[item.outcome] = (outcomes[item.outcome] || 0) + 1;
  const byOutcome = Object.entries(outcomes)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(', ');
  const people = `${result.items.length} ${result.items.length === 1 ? 'person' : 'people'}`;
  return `${people}${byOutcome ? ` (${byOutcome})` : ''}${result.next_cursor ? ', more pages follow' : ''}`;
}

function main() {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error("Set WEBHOOK_SECRET to the endpoint's whsec_… secret.");
    process.exit(2);
  }
  const handler = createReceiver({ secret, onEvent: printEvent });
  const { TLS_CERT_FILE, TLS_KEY_FILE } = process.env;
  const server =
    TLS_CERT_FILE && TLS_KEY_FILE
      ? createHttpsServer({ cert: readFileSync(TLS_CERT_FILE), key: readFileSync(TLS_KEY_FILE) }, handler)
      : createHttpServer(handler);
  const port = Number(process.env.PORT || 3000);
  const host = process.env.HOST || '127.0.0.1';
  const shownHost = host.includes(':') ? `[${host}]` : host;
  server.listen(port, host, () => console.log(`receiving webhooks on ${TLS_CERT_FILE ? 'https' : 'http'}://${shownHost}:${port}/`));
}

module.exports = { createReceiver, describeResult, SeenEvents, MAX_BODY_BYTES };

if (require.main === module) main();
