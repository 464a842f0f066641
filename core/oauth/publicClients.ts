import { LRUCache } from 'lru-cache';
import type { Config } from '../config';
import { newId } from '../ids';
import { ClientAddressLimits } from '../limits/clientAddressLimits';
import type { Logger } from '../observability/logger';
import type { OutboundConnections } from '../outbound/outboundConnections';
import type { TrustAnchors } from '../outbound/trustAnchors';
import type { LookupAll } from '../outbound/destinationPolicy';
import { systemDestinationLookup } from '../outbound/destinationResolver';
import { FETCH_TIMEOUT_MS, fetchMetadataDocument } from './metadataDocumentFetch';
import { MetadataFetchBounds } from './metadataFetchBounds';
import { cacheSecondsOf, isMetadataDocumentUrl, validateMetadataDocument, type ClientMetadata } from './metadataDocuments';
import { checkRegisteredRedirectUri } from './redirectUris';
import type { OAuthStores } from './store';

/**
 * Public clients of browser sign-in (MCP clients: Claude, VS Code, Cursor, Claude Code): either
 * a Client ID Metadata Document (the client_id is an HTTPS URL, fetched and cached) or a client
 * registered through RFC 7591 dynamic registration (stored). Neither has a secret; PKCE binds
 * each code to the client instance that asked for it.
 */
export interface PublicClientRecord extends ClientMetadata {
  kind: 'dynamic' | 'metadata_document';
}

/**
 * A refusal's `reason` may be shown to the caller. Whatever went wrong with a metadata document
 * (an error status, a timeout, an unreachable or refused address, a document that breaks the
 * rules) reads the same, so the answer is no probe of what listens where; the log has the
 * precise reason. `status` is set when the refusal is a limit (429) or capacity (503), with
 * `retryAfterSeconds`.
 */
export type ClientLookup = { ok: true; client: PublicClientRecord } | { ok: false; reason: string; status?: 429 | 503; retryAfterSeconds?: number };

export const DOCUMENT_UNUSABLE = "the client's metadata document could not be used";

/** Who is asking: the address whose allowance a fetch uses, and the request id the log names. */
export interface LookupCaller {
  address: string;
  requestId?: string;
}

export interface PublicClientsOptions {
  /** The app's clock (milliseconds): the document cache and the failure memory read it. */
  clock: () => number;
  /** The app's logger: refused and failed fetches are logged with the request they served. */
  logger: Logger;
  /** The app's trust anchors for the fetches. */
  trustAnchors: TrustAnchors;
  /** The app's outbound TLS contexts. */
  outbound: OutboundConnections;
  /** The DNS lookup of the destination check before a fetch; the system's by default. */
  destinationLookup?: LookupAll;
  /** The app's per-address limits, which bound the fetches an address causes. */
  addressLimits: ClientAddressLimits;
  /** The app's OAuth store, where registered clients and revocations are kept. */
  stores: OAuthStores;
}

/**
 * The public clients one app resolves: metadata documents it fetched (cached by their
 * Cache-Control, at most 1000), the fetches under way (a second request for a URL joins the
 * first), and the bounds on its fetches. Built once per app by the composition root
 * (api/app.ts createApp) and passed to the endpoints that resolve clients.
 */
export class PublicClients {
  private readonly documents: LRUCache<string, ClientMetadata>;
  private readonly inFlight = new Map<string, Promise<ClientLookup>>();
  private readonly bounds: MetadataFetchBounds;
  private readonly destinationLookup: LookupAll;
  private readonly addressLimits: ClientAddressLimits;
  private readonly logger: Logger;
  private readonly trustAnchors: TrustAnchors;
  private readonly outbound: OutboundConnections;
  private readonly stores: OAuthStores;

  constructor(
    private readonly config: Config,
    options: PublicClientsOptions,
  ) {
    const clock = options.clock;
    this.stores = options.stores;
    this.logger = options.logger;
    this.trustAnchors = options.trustAnchors;
    this.outbound = options.outbound;
    this.destinationLookup = options.destinationLookup ?? systemDestinationLookup;
    this.addressLimits = options.addressLimits;
    this.documents = new LRUCache({ max: 1000, ttl: 1000 * 60, ttlAutopurge: false, perf: { now: clock } });
    this.bounds = new MetadataFetchBounds(
      { maxInFlight: config.metadataDocuments.fetchesInFlight, failureTtlMs: config.metadataDocuments.failureCacheSeconds * 1000 },
      clock,
    );
  }

  /** The client behind a client_id, or why it cannot be used. */
  async resolve(clientId: string, caller: LookupCaller): Promise<ClientLookup> {
    if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 2048) return { ok: false, reason: 'unknown client' };
    const stored = await this.stores.oauth.findPublicClient(clientId);
    if (stored?.revokedAt) return { ok: false, reason: 'this client has been revoked' };
    if (isMetadataDocumentUrl(clientId)) return this.metadataDocumentClient(clientId, caller);
    if (!stored || stored.kind !== 'dynamic') return { ok: false, reason: 'unknown client' };
    return {
      ok: true,
      client: {
        kind: 'dynamic',
        clientId: stored._id,
        clientName: stored.clientName ?? 'Unnamed application',
        redirectUris: stored.redirectUris,
        grantTypes: stored.grantTypes,
        applicationType: stored.applicationType,
      },
    };
  }

  /** Forgets cached documents and remembered failures (as if their cache times had passed). */
  forgetDocuments(): void {
    this.documents.clear();
    this.bounds.forgetFailures();
  }

  /**
   * A metadata document from the cache, from a fetch already running for the URL, or from a new
   * fetch, which must fit the app's in-flight bound and the caller address's allowance. A
   * URL that failed within the failure-cache time is refused without a fetch.
   */
  private async metadataDocumentClient(url: string, caller: LookupCaller): Promise<ClientLookup> {
    const cached = this.documents.get(url);
    if (cached) return { ok: true, client: { ...cached, kind: 'metadata_document' } };
    const running = this.inFlight.get(url);
    if (running) return running;
    const bounds = this.bounds;
    const failed = bounds.recentFailure(url);
    if (failed !== undefined) return unusable(this.logger, url, failed, caller, true);
    if (!bounds.tryStart()) {
      this.logger.warn(
        { request_id: caller.requestId, client_id: url, in_flight: bounds.running },
        'client metadata document fetches at capacity; sign-in refused',
      );
      return {
        ok: false,
        reason: 'too many sign-in requests are being checked right now; try again in a few seconds',
        status: 503,
        retryAfterSeconds: Math.ceil(FETCH_TIMEOUT_MS / 1000),
      };
    }
    let started = false;
    try {
      const admitted = await this.addressLimits.admit('metadata-fetch', caller.address, this.config.addressLimits.metadataDocumentFetchesPerMinute);
      if (!admitted.admitted) {
        return {
          ok: false,
          reason: 'too many new applications were checked for this address; try again later',
          status: 429,
          retryAfterSeconds: admitted.retryAfterSeconds,
        };
      }
      // Another request may have started this URL's fetch while the allowance was counted.
      const joined = this.inFlight.get(url);
      if (joined) return joined;
      const pending = this.loadDocument(url, caller).finally(() => {
        this.inFlight.delete(url);
        bounds.finish();
      });
      this.inFlight.set(url, pending);
      started = true;
      return pending;
    } finally {
      if (!started) bounds.finish();
    }
  }

  private async loadDocument(url: string, caller: LookupCaller): Promise<ClientLookup> {
    const fetched = await fetchMetadataDocument(url, {
      lookupAll: this.destinationLookup,
      allowedCidrs: this.config.webhooks.allowedCidrs,
      ca: this.trustAnchors.of(this.config.webhooks.extraCaFile),
      connections: this.outbound,
    });
    const failed = (reason: string) => {
      this.bounds.rememberFailure(url, reason);
      return unusable(this.logger, url, reason, caller, false);
    };
    if (!fetched.ok) return failed(fetched.reason);
    const verdict = validateMetadataDocument(url, fetched.contentType, fetched.body);
    if (!verdict.ok) return failed(verdict.reason);
    this.documents.set(url, verdict.client, { ttl: cacheSecondsOf(fetched.cacheControl) * 1000 });
    return { ok: true, client: { ...verdict.client, kind: 'metadata_document' } };
  }
}

function unusable(logger: Logger, url: string, reason: string, caller: LookupCaller, remembered: boolean): ClientLookup {
  logger.warn(
    { request_id: caller.requestId, client_id: url, reason, ...(remembered ? { remembered_failure: true } : {}) },
    remembered ? 'a client metadata document that failed recently was not fetched again' : 'a client metadata document could not be used',
  );
  return { ok: false, reason: DOCUMENT_UNUSABLE };
}

/** Whether the operator revoked this public client (a dynamic one, or a metadata-document URL). Read on every request. */
export async function isPublicClientRevoked(stores: OAuthStores, clientId: string): Promise<boolean> {
  const doc = await stores.oauth.findPublicClient(clientId);
  if (!doc) return !isMetadataDocumentUrl(clientId);
  return doc.revokedAt !== null;
}

/**
 * Revokes a public client: a registered one, or a metadata-document URL (recorded so it is refused
 * from now on). Apps read the revocation before any document they cached, so no cache outlives it.
 */
export async function revokePublicClient(stores: OAuthStores, clientId: string, now: Date): Promise<boolean> {
  if (await stores.oauth.findPublicClient(clientId)) {
    await stores.oauth.revokePublicClientRecord(clientId, now);
    return true;
  }
  if (!isMetadataDocumentUrl(clientId)) return false;
  // A concurrent revocation may have stored the marker first: it is revoked either way.
  await stores.oauth.insertPublicClient({ _id: clientId, kind: 'metadata_document', createdAt: now, revokedAt: now });
  await stores.oauth.revokePublicClientRecord(clientId, now);
  return true;
}

export class RegistrationError extends Error {
  constructor(
    readonly error: 'invalid_client_metadata' | 'invalid_redirect_uri',
    readonly description: string,
  ) {
    super(description);
  }
}

const REGISTRABLE_GRANTS = ['authorization_code', 'refresh_token'];

/**
 * RFC 7591 registration of a public client. Omitted fields take the defaults MCP clients
 * expect: token_endpoint_auth_method `none` (the only method offered to registered clients),
 * grant_types authorization_code and refresh_token, response_types code.
 */
export async function registerPublicClient(stores: OAuthStores, metadata: unknown, now: Date): Promise<Record<string, unknown>> {
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata))
    throw new RegistrationError('invalid_client_metadata', 'Send the client metadata as a JSON object.');
  const m = metadata as Record<string, unknown>;
  const authMethod = m.token_endpoint_auth_method ?? 'none';
  if (authMethod !== 'none')
    throw new RegistrationError('invalid_client_metadata', 'Only public clients may register: token_endpoint_auth_method must be "none".');
  const applicationType = m.application_type ?? 'web';
  if (applicationType !== 'web' && applicationType !== 'native')
    throw new RegistrationError('invalid_client_metadata', 'application_type must be "web" or "native".');
  const grantTypes = m.grant_types ?? REGISTRABLE_GRANTS;
  if (!Array.isArray(grantTypes) || grantTypes.length === 0 || grantTypes.some((g) => !REGISTRABLE_GRANTS.includes(g as string))) {
    throw new RegistrationError('invalid_client_metadata', 'grant_types may hold authorization_code and refresh_token only.');
  }
  if (!grantTypes.includes('authorization_code')) throw new RegistrationError('invalid_client_metadata', 'grant_types must include authorization_code.');
  const responseTypes = m.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== 'code')
    throw new RegistrationError('invalid_client_metadata', 'response_types must be ["code"].');
  if (m.client_name !== undefined && (typeof m.client_name !== 'string' || m.client_name.trim() === '' || m.client_name.length > 200)) {
    throw new RegistrationError('invalid_client_metadata', 'client_name must be 1 to 200 characters.');
  }
  if (!Array.isArray(m.redirect_uris) || m.redirect_uris.length === 0 || m.redirect_uris.length > 20) {
    throw new RegistrationError('invalid_redirect_uri', 'redirect_uris must list 1 to 20 redirect URIs.');
  }
  for (const uri of m.redirect_uris) {
    const verdict = checkRegisteredRedirectUri(uri, applicationType);
    if (!verdict.ok) throw new RegistrationError('invalid_redirect_uri', verdict.reason);
  }
  const clientId = newId('pcl');
  const clientName = typeof m.client_name === 'string' ? m.client_name.trim() : null;
  const redirectUris = [...new Set(m.redirect_uris as string[])];
  await stores.oauth.insertPublicClient({ _id: clientId, kind: 'dynamic', clientName, redirectUris, grantTypes, applicationType, createdAt: now });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(clientName ? { client_name: clientName } : {}),
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: applicationType,
    scope: 'mcp:tools',
  };
}
