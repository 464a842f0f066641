import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import { checkDestination, type LookupAll, type ResolvedAddress } from '../webhooks/destinationPolicy';

/**
 * GET of a Client ID Metadata Document under the same destination rules as webhook delivery
 * (core/webhooks/destinationPolicy): https only, every DNS answer must be a public address (or
 * inside WEBHOOK_ALLOWED_CIDRS for tests), the connection goes to the approved address only,
 * TLS is verified for the URL's host name, redirects are refused, at most MAX_DOCUMENT_BYTES are
 * read within FETCH_TIMEOUT_MS.
 */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 5_000;

export interface FetchSettings {
  lookupAll: LookupAll;
  allowedCidrs: readonly string[];
  extraCaFile?: string;
  timeoutMs?: number;
}

export type FetchedDocument = { ok: true; status: number; contentType: string; cacheControl: string; body: string } | { ok: false; reason: string };

const trustCache = new Map<string, string[]>();

function trustAnchors(extraCaFile: string | undefined): string[] | undefined {
  if (!extraCaFile) return undefined;
  let ca = trustCache.get(extraCaFile);
  if (!ca) {
    ca = [...rootCertificates, readFileSync(extraCaFile, 'utf8')];
    trustCache.set(extraCaFile, ca);
  }
  return ca;
}

function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options && options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

export async function fetchMetadataDocument(url: string, settings: FetchSettings): Promise<FetchedDocument> {
  const verdict = await checkDestination(url, settings.lookupAll, settings.allowedCidrs);
  if (!verdict.ok) return { ok: false, reason: `the document's address is not allowed (${verdict.reason})` };
  const { destination, pinned } = verdict;
  const ca = trustAnchors(settings.extraCaFile);
  return new Promise<FetchedDocument>((resolve) => {
    let settled = false;
    const finish = (outcome: FetchedDocument) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = request(
      {
        method: 'GET',
        host: destination.host,
        port: destination.port,
        path: destination.url.pathname + destination.url.search,
        headers: { accept: 'application/json', 'user-agent': 'talent-platform-oauth/1' },
        lookup: pinnedLookup(pinned),
        ...(destination.literal ? {} : { servername: destination.host }),
        agent: false,
        ...(ca ? { ca } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          res.destroy();
          return finish({
            ok: false,
            reason: status >= 300 && status < 400 ? 'the document URL redirects (not followed)' : `the document URL answered ${status}`,
          });
        }
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_DOCUMENT_BYTES) {
            res.destroy();
            return finish({ ok: false, reason: `the document exceeds ${MAX_DOCUMENT_BYTES} bytes` });
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          finish({
            ok: true,
            status,
            contentType: String(res.headers['content-type'] ?? ''),
            cacheControl: String(res.headers['cache-control'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', () => finish({ ok: false, reason: 'the document could not be read' }));
        res.on('aborted', () => finish({ ok: false, reason: 'the document could not be read' }));
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, reason: `the document was not served within ${settings.timeoutMs ?? FETCH_TIMEOUT_MS} ms` });
      req.destroy();
    }, settings.timeoutMs ?? FETCH_TIMEOUT_MS);
    req.on('error', () => finish({ ok: false, reason: 'the document URL could not be reached' }));
    req.end();
  });
}
