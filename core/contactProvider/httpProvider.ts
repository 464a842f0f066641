import {
  ProviderRejected,
  ProviderUnavailable,
  type ContactField,
  type ContactProvider,
  type ProviderAnswer,
  type ProviderLookupRequest,
} from './contactProvider';
import { parseRetryAfter } from './retryPolicy';
import { errorMessage } from '../observability/errorMessage';

/**
 * The `http` contact provider: a vendor (or an adapter in front of one) reached over HTTP.
 *
 * Request contract — `POST {CONTACT_PROVIDER_URL}`:
 *   Authorization: Bearer {CONTACT_PROVIDER_TOKEN}     (the provider's own credential; omitted when unset)
 *   Content-Type: application/json
 *   {"people": [{"person_id": "per_…"}, …], "fields": ["email", "phone"]}
 *
 * Response contract — 200, application/json:
 *   {"results": [{"person_id": "per_…", "status": "found", "emails": ["…"], "phones": ["…"]},
 *                {"person_id": "per_…", "status": "not_found"}]}
 *   A person missing from `results` failed for this call.
 *
 * Failures: timeouts, connection errors, 5xx and 429 (its Retry-After honoured) are transient
 * and retried by the caller within a bound; any other status, or a body that breaks the
 * contract, is a rejection that fails the people of the call. Nothing of the customer's
 * request (API key, request id, organization) is sent.
 */
export interface HttpProviderOptions {
  url: string;
  token?: string;
  timeoutMs: number;
  /** The clock a Retry-After date is counted from. */
  now: () => number;
}

const MAX_RESPONSE_BYTES = 4 << 20;

export function httpContactProvider(opts: HttpProviderOptions): ContactProvider {
  return {
    name: 'http',
    async lookup(req: ProviderLookupRequest): Promise<ProviderAnswer[]> {
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
      const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
      if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
      let res: Response;
      let text: string;
      try {
        res = await fetch(opts.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ people: req.personIds.map((id) => ({ person_id: id })), fields: req.fields }),
          signal,
          redirect: 'manual',
        });
        text = await res.text();
      } catch (err) {
        const reason = timeout.aborted ? `timed out after ${opts.timeoutMs} ms` : errorMessage(err);
        throw new ProviderUnavailable(`contact provider unreachable: ${reason}`);
      }
      if (res.status === 429 || res.status >= 500) {
        throw new ProviderUnavailable(
          `contact provider answered ${res.status}`,
          res.status === 429 ? parseRetryAfter(res.headers.get('retry-after'), opts.now()) : undefined,
        );
      }
      if (res.status !== 200) throw new ProviderRejected(`contact provider answered ${res.status}`);
      if (text.length > MAX_RESPONSE_BYTES) throw new ProviderRejected('contact provider answer too large');
      return parseAnswers(text, req.personIds, req.fields);
    },
  };
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length > 0 && x.length <= 320) : [];
}

/** Keeps only answers for people that were asked about, with the fields that were asked for. */
export function parseAnswers(text: string, asked: readonly string[], fields: readonly ContactField[]): ProviderAnswer[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ProviderRejected('contact provider answer is not JSON');
  }
  const results = (body as { results?: unknown })?.results;
  if (!Array.isArray(results)) throw new ProviderRejected('contact provider answer has no results array');
  const wanted = new Set(asked);
  const out: ProviderAnswer[] = [];
  for (const r of results as Array<Record<string, unknown>>) {
    const personId = r?.person_id;
    if (typeof personId !== 'string' || !wanted.has(personId)) continue;
    wanted.delete(personId);
    if (r.status === 'found') {
      out.push({
        personId,
        status: 'found',
        emails: fields.includes('email') ? stringList(r.emails) : [],
        phones: fields.includes('phone') ? stringList(r.phones) : [],
      });
    } else if (r.status === 'not_found') {
      out.push({ personId, status: 'not_found' });
    }
  }
  return out;
}
