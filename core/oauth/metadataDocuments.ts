import { checkRegisteredRedirectUri } from './redirectUris';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP authorization
 * 2025-11-25): a client whose `client_id` is an HTTPS URL publishes its metadata there. Pure
 * rules: which URLs may be client ids, what a document must say, how long to cache it.
 */
export const MIN_CACHE_SECONDS = 60;
export const MAX_CACHE_SECONDS = 24 * 3600;
export const DEFAULT_CACHE_SECONDS = 300;

export interface ClientMetadata {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  applicationType: string;
}

export type MetadataVerdict = { ok: true; client: ClientMetadata } | { ok: false; reason: string };

/** Whether a client_id names a metadata document: https, a path, no fragment, credentials or dot segments. */
export function isMetadataDocumentUrl(clientId: unknown): clientId is string {
  if (typeof clientId !== 'string' || clientId.length > 2048 || !clientId.startsWith('https://')) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.hash !== '' || clientId.includes('#') || url.username !== '' || url.password !== '') return false;
  const rawPath = clientId
    .slice('https://'.length)
    .replace(/^[^/?]*/, '')
    .split('?')[0];
  if (rawPath === '' || rawPath === '/') return false;
  if (rawPath.split('/').some((segment) => segment === '.' || segment === '..' || /^%2e(%2e)?$/i.test(segment) || /^\.%2e$|^%2e\.$/i.test(segment)))
    return false;
  return true;
}

const ALLOWED_GRANTS = new Set(['authorization_code', 'refresh_token']);

/** The checks a fetched document must pass before its client may sign anyone in. */
export function validateMetadataDocument(url: string, contentType: string, body: string): MetadataVerdict {
  if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(contentType.trim())) return { ok: false, reason: 'the document is not served as application/json' };
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'the document is not valid JSON' };
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { ok: false, reason: 'the document is not a JSON object' };
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) return { ok: false, reason: 'the document does not name its own URL as client_id' };
  if (typeof d.client_name !== 'string' || d.client_name.trim() === '' || d.client_name.length > 200)
    return { ok: false, reason: 'the document needs a client_name of 1 to 200 characters' };
  if ('client_secret' in d || 'client_secret_expires_at' in d) return { ok: false, reason: 'a metadata document must not carry a client secret' };
  const authMethod = d.token_endpoint_auth_method ?? 'none';
  if (authMethod !== 'none') return { ok: false, reason: 'token_endpoint_auth_method must be "none" (public clients only)' };
  const applicationType = d.application_type === undefined ? 'web' : d.application_type;
  if (applicationType !== 'web' && applicationType !== 'native') return { ok: false, reason: 'application_type must be "web" or "native"' };
  const grantTypes = d.grant_types === undefined ? ['authorization_code'] : d.grant_types;
  if (!Array.isArray(grantTypes) || !grantTypes.includes('authorization_code') || grantTypes.some((g) => typeof g !== 'string')) {
    return { ok: false, reason: 'grant_types must include authorization_code' };
  }
  if (d.response_types !== undefined && (!Array.isArray(d.response_types) || !d.response_types.includes('code')))
    return { ok: false, reason: 'response_types must include code' };
  if (!Array.isArray(d.redirect_uris) || d.redirect_uris.length === 0 || d.redirect_uris.length > 20)
    return { ok: false, reason: 'redirect_uris must list 1 to 20 redirect URIs' };
  for (const uri of d.redirect_uris) {
    const verdict = checkRegisteredRedirectUri(uri, applicationType);
    if (!verdict.ok) return { ok: false, reason: `redirect_uris: ${verdict.reason}` };
  }
  return {
    ok: true,
    client: {
      clientId: url,
      clientName: d.client_name.trim(),
      redirectUris: d.redirect_uris as string[],
      grantTypes: (grantTypes as string[]).filter((g) => ALLOWED_GRANTS.has(g)),
      applicationType,
    },
  };
}

/** Cache lifetime from the response's Cache-Control, kept within [60 s, 24 h]. */
export function cacheSecondsOf(cacheControl: string): number {
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return MIN_CACHE_SECONDS;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)).find(Boolean);
  const seconds = maxAge ? Number(maxAge[1]) : DEFAULT_CACHE_SECONDS;
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds));
}
