import { pinnedFetch } from '../outbound/pinnedFetch';
import type { LookupAll } from '../outbound/destinationPolicy';
import type { OutboundConnections } from '../outbound/outboundConnections';

/**
 * One webhook POST (DECISIONS.md "Webhook endpoints") through the pinned outbound fetch
 * (core/outbound/pinnedFetch.ts): the destination is re-checked against every DNS answer, the
 * connection goes only to the approved address, TLS is verified for the URL's host name,
 * redirects are failures, 15 s in total (DNS included: a resolver that does not answer in time
 * is a `timeout`), at most 64 KiB of the response is read. Never throws for the receiver's behaviour: every
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
  /** The app's keep-alive pools (Deps.outbound). */
  connections: OutboundConnections;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function classify(err: NodeJS.ErrnoException): AttemptErrorCode {
  const code = err.code ?? '';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(err.message)) return 'tls_error';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_error';
  return 'connection_error';
}

export async function sendAttempt(req: AttemptRequest, settings: SendSettings): Promise<AttemptOutcome> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const result = await pinnedFetch({
    url: req.url,
    method: 'POST',
    headers: { ...req.headers, 'user-agent': 'talent-platform-webhooks/1' },
    body: Buffer.from(req.body, 'utf8'),
    lookupAll: settings.lookupAll,
    allowedCidrs: settings.allowedCidrs,
    ca: settings.ca,
    connections: settings.connections,
    timeoutMs: settings.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
    maxResponseBytes: settings.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    keepAlive: true,
  });
  const failed = (errorCode: AttemptErrorCode, address: string | null, responseStatus: number | null = null): AttemptOutcome => ({
    ok: false,
    errorCode,
    responseStatus,
    durationMs: durationMs(),
    address,
  });
  switch (result.kind) {
    case 'refused':
      return failed(result.reason === 'no_address' ? 'dns_error' : 'destination_refused', null);
    case 'timeout':
      return failed('timeout', result.address);
    case 'failed':
      return failed(classify(result.error), result.address);
    case 'answered': {
      // The status decides, however the body ended (an oversized one is not read to its end).
      const status = result.status;
      if (status >= 200 && status < 300) return { ok: true, responseStatus: status, durationMs: durationMs(), address: result.address };
      return failed(status >= 300 && status < 400 ? 'redirect' : 'http_status', result.address, status); // a redirect is never followed
    }
  }
}
