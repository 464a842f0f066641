import type { IncomingHttpHeaders } from 'node:http';
import { request, type RequestOptions } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkDestination, type LookupAll, type RefusalReason, type ResolvedAddress } from './destinationPolicy';
import type { OutboundConnections } from './outboundConnections';

/**
 * One HTTPS request to a URL a customer named (webhook attempts, Client ID Metadata
 * Documents), under the destination policy (core/outbound/destinationPolicy.ts): every DNS
 * answer is checked, the connection goes only to the approved address (pinned through
 * `lookup`, so a second resolution cannot rebind it), TLS is verified for the URL's host name,
 * redirects are never followed (a 3xx is an answer like any other, for the caller to judge),
 * one time budget covers DNS, connect, TLS and the response, and at most `maxResponseBytes` of
 * the body are read. Never throws for the destination's behaviour: every outcome is a value.
 */
export interface PinnedRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer;
  lookupAll: LookupAll;
  allowedCidrs: readonly string[];
  /** Trust anchors (system roots plus an extra CA); undefined = the system roots. */
  ca?: string[];
  timeoutMs: number;
  maxResponseBytes: number;
  /** Pooled keep-alive connections; otherwise one connection per request. */
  keepAlive: boolean;
  /** The app's pools and TLS contexts (core/outbound/outboundConnections.ts). */
  connections: OutboundConnections;
  /** Whether the body of an answer with this status is read; when not, the answer ends at its status. Default: read. */
  readBody?: (status: number) => boolean;
}

/** How reading the body ended: all of it, cut at the byte cap, broken off by the peer, or not read at all. */
export type BodyEnd = 'complete' | 'over_limit' | 'broken' | 'not_read';

export type PinnedResult =
  | { kind: 'refused'; reason: RefusalReason }
  | { kind: 'timeout'; address: string | null }
  | { kind: 'failed'; address: string; error: NodeJS.ErrnoException }
  | { kind: 'answered'; address: string; status: number; headers: IncomingHttpHeaders; body: Buffer; bodyEnd: BodyEnd };

/** A lookup that answers every resolution with the one address the destination check approved. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
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

export async function pinnedFetch(req: PinnedRequest): Promise<PinnedResult> {
  const started = performance.now();
  const verdict = await within(checkDestination(req.url, req.lookupAll, req.allowedCidrs), req.timeoutMs, TIMED_OUT);
  if (verdict === TIMED_OUT) return { kind: 'timeout', address: null };
  if (!verdict.ok) return { kind: 'refused', reason: verdict.reason };
  const { destination, pinned } = verdict;
  const address = pinned.address;
  const trust = req.connections.trustSet(req.ca);
  const options: RequestOptions = {
    method: req.method,
    host: destination.host,
    port: destination.port,
    path: destination.url.pathname + destination.url.search,
    headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
    lookup: pinnedLookup(pinned),
    // Verify the certificate against the URL's host name, never the pinned address.
    ...(destination.literal ? {} : { servername: destination.host }),
    agent: req.keepAlive ? req.connections.pool(`${destination.host}|${destination.port}|${address}`, trust) : false,
    ...(trust.context ? { secureContext: trust.context } : {}),
  };
  return new Promise<PinnedResult>((resolve) => {
    let settled = false;
    const finish = (result: PinnedResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const r = request(options, (res) => {
      const status = res.statusCode ?? 0;
      const answered = (body: Buffer, bodyEnd: BodyEnd) => finish({ kind: 'answered', address, status, headers: res.headers, body, bodyEnd });
      if (req.readBody && !req.readBody(status)) {
        res.destroy();
        return answered(Buffer.alloc(0), 'not_read');
      }
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > req.maxResponseBytes) {
          // The rest of an oversized body is not read.
          answered(Buffer.concat(chunks), 'over_limit');
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => answered(Buffer.concat(chunks), 'complete'));
      res.on('error', () => answered(Buffer.concat(chunks), 'broken'));
      res.on('aborted', () => answered(Buffer.concat(chunks), 'broken'));
    });
    const timer = setTimeout(
      () => {
        finish({ kind: 'timeout', address });
        r.destroy(new Error('request timed out'));
      },
      Math.max(0, req.timeoutMs - (performance.now() - started)),
    );
    r.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'failed', address, error }));
    r.end(req.body);
  });
}
