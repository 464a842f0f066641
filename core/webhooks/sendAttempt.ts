import { Agent, request, type RequestOptions } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { LookupFunction } from 'node:net';
import { checkDestination, type LookupAll, type ResolvedAddress } from './destinationPolicy';

/**
 * One webhook POST (DECISIONS.md "Webhook endpoints"): the destination is re-checked against
 * every DNS answer, the connection goes only to the approved address (pinned through
 * `lookup`), TLS is verified for the URL's host name, redirects are failures, 15 s in total
 * (DNS included: a resolver that does not answer in time is a `timeout`),
 * at most 64 KiB of the response is read. Never throws for the receiver's behaviour: every
 * outcome is a value the delivery record stores.
 */
export const ATTEMPT_TIMEOUT_MS = 15_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;

export type AttemptErrorCode =
  'destination_refused' | 'dns_error' | 'connection_refused' | 'connection_error' | 'tls_error' | 'timeout' | 'redirect' | 'http_status';

export type AttemptOutcome =
  | { ok: true; responseStatus: number; durationMs: number; address: string }
  | { ok: false; errorCode: AttemptErrorCode; responseStatus: number | null; durationMs: number; address: string | null };

export interface SendSettings {
  lookupAll: LookupAll;
  allowedCidrs: readonly string[];
  /** Trust anchors: system roots plus WEBHOOK_EXTRA_CA_FILE when set; undefined = system roots. */
  ca?: string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

// Keep-alive agents, one per (host, port, pinned address): a pooled socket is reused only by
// a request whose own check approved the very address that socket is connected to.
// The trust anchors are part of the key too: a socket verified against one CA set is never
// lent to a request that trusts another. A custom CA set becomes one TLS secure context, built
// once: passed as `ca`, Node would parse every root certificate again for each new connection
// and fold all of them into the agent's pool key string on every request.
const agents = new Map<string, Agent>();
const MAX_AGENTS = 256;
const trustSets = new WeakMap<string[], { id: number; context: SecureContext }>();
let nextTrustId = 1;

function trustSet(ca: string[] | undefined): { key: string; context?: SecureContext } {
  if (!ca) return { key: 'system' };
  let set = trustSets.get(ca);
  if (!set) {
    set = { id: nextTrustId++, context: createSecureContext({ ca }) };
    trustSets.set(ca, set);
  }
  return { key: `ca${set.id}`, context: set.context };
}

function agentFor(key: string, context: SecureContext | undefined): Agent {
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      const [oldestKey, oldest] = agents.entries().next().value as [string, Agent];
      oldest.destroy();
      agents.delete(oldestKey);
    }
    agent = new Agent({ keepAlive: true, timeout: 5_000, maxSockets: 64, ...(context ? { secureContext: context } : {}) });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes pooled connections (tests, shutdown). */
export function closeAttemptAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function classify(err: NodeJS.ErrnoException): AttemptErrorCode {
  const code = err.code ?? '';
  if (code === 'ATTEMPT_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(err.message)) return 'tls_error';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_error';
  return 'connection_error';
}

function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options && options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

/** The promise's value, or `late` once `ms` passed (the promise itself cannot be stopped: a DNS lookup has no cancel). */
async function within<T, L>(p: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<L>((resolve) => {
        timer = setTimeout(() => resolve(late), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const TIMED_OUT = Symbol('timed out');

export async function sendAttempt(req: AttemptRequest, settings: SendSettings): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // One budget for the whole attempt: DNS, connect, TLS and the response.
  const timeoutMs = settings.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const verdict = await within(checkDestination(req.url, settings.lookupAll, settings.allowedCidrs), timeoutMs, TIMED_OUT);
  if (verdict === TIMED_OUT) return { ok: false, errorCode: 'timeout', responseStatus: null, durationMs: elapsed(), address: null };
  if (!verdict.ok) {
    return {
      ok: false,
      errorCode: verdict.reason === 'no_address' ? 'dns_error' : 'destination_refused',
      responseStatus: null,
      durationMs: elapsed(),
      address: null,
    };
  }
  const { destination, pinned } = verdict;
  const maxBytes = settings.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const body = Buffer.from(req.body, 'utf8');
  const trust = trustSet(settings.ca);
  const options: RequestOptions = {
    method: 'POST',
    host: destination.host,
    port: destination.port,
    path: destination.url.pathname + destination.url.search,
    headers: { ...req.headers, 'content-length': String(body.length), 'user-agent': 'talent-platform-webhooks/1' },
    lookup: pinnedLookup(pinned),
    // Verify the certificate against the URL's host name, never the pinned address.
    ...(destination.literal ? {} : { servername: destination.host }),
    agent: agentFor(`${destination.host}|${destination.port}|${pinned.address}|${trust.key}`, trust.context),
    ...(trust.context ? { secureContext: trust.context } : {}),
  };
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const fail = (errorCode: AttemptErrorCode, responseStatus: number | null = null) =>
      finish({ ok: false, errorCode, responseStatus, durationMs: elapsed(), address: pinned.address });
    const r = request(options, (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      const conclude = () => {
        if (status >= 200 && status < 300) finish({ ok: true, responseStatus: status, durationMs: elapsed(), address: pinned.address });
        else if (status >= 300 && status < 400)
          fail('redirect', status); // never followed
        else fail('http_status', status);
      };
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > maxBytes) {
          // The status already decided the outcome; the rest of an oversized body is not read.
          conclude();
          res.destroy();
        }
      });
      res.on('end', conclude);
      res.on('error', () => conclude());
      res.on('aborted', () => conclude());
    });
    const timer = setTimeout(
      () => {
        const err = Object.assign(new Error('attempt timed out'), { code: 'ATTEMPT_TIMEOUT' });
        fail('timeout');
        r.destroy(err);
      },
      Math.max(0, timeoutMs - (performance.now() - started)),
    );
    r.on('error', (err: NodeJS.ErrnoException) => fail(classify(err)));
    r.end(body);
  });
}
