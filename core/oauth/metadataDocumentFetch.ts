import { pinnedFetch } from '../outbound/pinnedFetch';
import type { LookupAll } from '../outbound/destinationPolicy';
import type { OutboundConnections } from '../outbound/outboundConnections';

/**
 * GET of a Client ID Metadata Document through the pinned outbound fetch webhook delivery uses
 * (core/outbound/pinnedFetch.ts), under the same destination rules: https only, every DNS answer must be a public address (or
 * inside WEBHOOK_ALLOWED_CIDRS for tests), the connection goes to the approved address only,
 * TLS is verified for the URL's host name, redirects are refused, at most MAX_DOCUMENT_BYTES are
 * read within FETCH_TIMEOUT_MS (DNS included).
 */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5_000;

export interface FetchSettings {
  lookupAll: LookupAll;
  allowedCidrs: readonly string[];
  /** Trust anchors (the app's, core/outbound/trustAnchors.ts); undefined = the system roots. */
  ca?: string[];
  /** The app's TLS contexts (Deps.outbound). */
  connections: OutboundConnections;
  timeoutMs?: number;
}

export type FetchedDocument = { ok: true; status: number; contentType: string; cacheControl: string; body: string } | { ok: false; reason: string };

export async function fetchMetadataDocument(url: string, settings: FetchSettings): Promise<FetchedDocument> {
  const timeoutMs = settings.timeoutMs ?? FETCH_TIMEOUT_MS;
  const result = await pinnedFetch({
    url,
    method: 'GET',
    headers: { accept: 'application/json', 'user-agent': 'talent-platform-oauth/1' },
    lookupAll: settings.lookupAll,
    allowedCidrs: settings.allowedCidrs,
    ca: settings.ca,
    connections: settings.connections,
    timeoutMs,
    maxResponseBytes: MAX_DOCUMENT_BYTES,
    keepAlive: false,
    readBody: (status) => status === 200,
  });
  switch (result.kind) {
    case 'refused':
      return { ok: false, reason: `the document's address is not allowed (${result.reason})` };
    case 'timeout':
      return { ok: false, reason: `the document was not served within ${timeoutMs} ms` };
    case 'failed':
      return { ok: false, reason: 'the document URL could not be reached' };
    case 'answered': {
      const { status, bodyEnd, headers } = result;
      if (status !== 200) {
        return { ok: false, reason: status >= 300 && status < 400 ? 'the document URL redirects (not followed)' : `the document URL answered ${status}` };
      }
      if (bodyEnd === 'over_limit') return { ok: false, reason: `the document exceeds ${MAX_DOCUMENT_BYTES} bytes` };
      if (bodyEnd !== 'complete') return { ok: false, reason: 'the document could not be read' };
      return {
        ok: true,
        status,
        contentType: String(headers['content-type'] ?? ''),
        cacheControl: String(headers['cache-control'] ?? ''),
        body: result.body.toString('utf8'),
      };
    }
  }
}
