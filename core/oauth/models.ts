import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';
import type { JWK } from 'jose';
import type { AllowanceMode } from '../credits/agentAllowance';

export interface ClientSecretRecord {
  _id: string;
  /** SHA-256 of the secret. */
  hash: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface ClientRecord {
  _id: string;
  orgId: string;
  workspaceId: string;
  applicationId: string;
  name: string | null;
  clientType: string;
  grantTypes: string[];
  tokenEndpointAuthMethods: string[];
  oauthScopes: string[];
  permissions: string[];
  rateLimitPerMinute: number;
  secrets: ClientSecretRecord[];
  revokedAt: Date | null;
  createdAt?: Date;
}

export interface StoredPublicClient {
  _id: string;
  kind: 'dynamic' | 'metadata_document';
  clientName: string | null;
  redirectUris: string[];
  grantTypes: string[];
  applicationType: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface SigningKeyRecord {
  _id: string;
  alg: string;
  publicJwk: JWK;
  privateJwkSealed: string;
  createdAt: Date;
  supersededAt: Date | null;
}

export interface RefreshTokenRecord {
  _id: string;
  /** SHA-256 of the token; the token itself is never stored. */
  hash: string;
  clientId: string;
  chainId: string;
  userId?: string | null;
  scope: string;
  resource: string;
  createdAt?: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

export interface RefreshRotationRecord {
  /** The used token's hash. */
  _id: string;
  chainId: string;
  /** The pair the rotation issued, sealed; null when the client has no retry window. */
  sealedPair: string | null;
  retryUntil: Date;
  createdAt: Date;
}

export interface ChainRecord {
  _id: string;
  userId: string;
  clientId: string;
  grantId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface GrantRecord {
  _id: string;
  /** User id and client id: unique, so two concurrent consents make one grant. */
  pairKey: string;
  userId: string;
  clientId: string;
  clientName: string;
  scope: string;
  orgId?: string;
  allowanceMode?: AllowanceMode;
  dailyCredits?: number | null;
  createdAt: Date;
}

export interface AgentPolicyRecord {
  _id: string;
  mode: 'spend' | 'read_only';
  defaultDailyCredits: number;
  maxDailyCredits: number | null;
  updatedAt: Date;
}

export interface PendingAuthorization {
  /** SHA-256 of the handle the pages carry. */
  _id: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scope: string;
  resource: string;
  expiresAt: Date;
}

export interface CodeRecord {
  /** SHA-256 of the code. */
  _id: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  resource: string;
  userId: string;
  grantId: string;
  chainId: string;
  expiresAt: Date;
}

export interface RateWindowRecord {
  /** The client id. */
  _id: string;
  windowStart: number;
  count: number;
}

/**
 * OAuth clients of the tool server (SPEC 5.2). A client belongs to one organization and acts
 * through a workspace and application made for it at provisioning, so everything the developer
 * API attributes to a key (limits, ledger, idempotency) has a home for tool calls too.
 * `grantTypes` and `tokenEndpointAuthMethods` leave room for interactive (browser) clients.
 */
const clientSecretSchema = new Schema<ClientSecretRecord>(
  {
    _id: { type: String, required: true },
    /** SHA-256 of the secret; the plaintext is shown once and never stored. */
    hash: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** Null while the secret is current; set when a rotation starts its grace period. */
    expiresAt: { type: Date, default: null },
  },
  { _id: false, versionKey: false },
);

const oauthClientSchema = new Schema<ClientRecord>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    workspaceId: { type: String, required: true },
    applicationId: { type: String, required: true },
    name: { type: String, default: null },
    /** `confidential` (M2M, client secret) today; `public` is reserved for browser sign-in. */
    clientType: { type: String, required: true, default: 'confidential' },
    grantTypes: { type: [String], required: true },
    tokenEndpointAuthMethods: { type: [String], required: true },
    /** OAuth scopes the client may request (`mcp:tools`). */
    oauthScopes: { type: [String], required: true },
    /** Developer-API permissions its tool calls carry (SPEC 5.1 access sets). */
    permissions: { type: [String], required: true },
    /** Requests per minute across the token endpoint and the tool server (SPEC 8.3 rule 4). */
    rateLimitPerMinute: { type: Number, required: true },
    secrets: { type: [clientSecretSchema], default: [] },
    revokedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);

/** Token signing keys, shared by every API replica; private halves sealed with SECRETS_ENCRYPTION_KEY. */
const signingKeySchema = new Schema<SigningKeyRecord>(
  {
    _id: { type: String, required: true },
    alg: { type: String, required: true },
    publicJwk: { type: Schema.Types.Mixed, required: true },
    privateJwkSealed: { type: String, required: true },
    createdAt: { type: Date, required: true, index: true },
    /** Set when a newer key takes over signing; the key is still published and accepted for one token lifetime. */
    supersededAt: { type: Date, default: null },
  },
  { versionKey: false },
);

/**
 * One refresh token. Every token issued from the same client_credentials grant shares a
 * `chainId`; using a token marks it used and issues its successor, and presenting a used one
 * again revokes the whole chain (RFC 9700 section 4.14.2).
 */
const refreshTokenSchema = new Schema<RefreshTokenRecord>(
  {
    _id: { type: String, required: true },
    hash: { type: String, required: true, unique: true },
    clientId: { type: String, required: true, index: true },
    chainId: { type: String, required: true, index: true },
    /** The person the chain acts for (browser sign-in); null for an M2M client's own chain. */
    userId: { type: String, default: null },
    scope: { type: String, required: true },
    resource: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** Idle expiry: unused for REFRESH_TOKEN_IDLE_SECONDS and it no longer works. */
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false },
);

/** The current one-minute window of a client's rate limit: one document per client. */
const clientRateWindowSchema = new Schema<RateWindowRecord>(
  {
    _id: { type: String, required: true },
    windowStart: { type: Number, required: true },
    count: { type: Number, required: true },
  },
  { versionKey: false },
);

/**
 * A person's consent to one client (DECISIONS.md "Interactive sign-in"): remembered until the
 * person or the operator revokes it. `pairKey` (user id + client id) is unique, so two
 * concurrent consents make one grant. Revoking deletes it and revokes its token chains.
 */
const consentGrantSchema = new Schema<GrantRecord>(
  {
    _id: { type: String, required: true },
    pairKey: { type: String, required: true, unique: true },
    userId: { type: String, required: true, index: true },
    clientId: { type: String, required: true },
    clientName: { type: String, required: true },
    scope: { type: String, required: true },
    /** The person's organization (grants made before allowances existed have none). */
    orgId: { type: String, default: undefined, index: true },
    /** What the person allowed (grantAllowance.ts): `read_only`, `daily` or `unlimited`; absent on grants made before allowances existed. */
    allowanceMode: { type: String, default: undefined },
    /** Credits a UTC day, for `daily`. */
    dailyCredits: { type: Number, default: undefined },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * One chain of tokens issued to a person's client from one authorization code; `_id` is the
 * `sid` claim of its access tokens and the `chainId` of its refresh tokens. The chain is created
 * by a unique insert when the code is redeemed, so a second redemption of the code finds it and
 * revokes it. The tool server reads it on every request: a revoked chain stops at once.
 */
const tokenChainSchema = new Schema<ChainRecord>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true, index: true },
    clientId: { type: String, required: true },
    grantId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false },
);

/** A pending authorization request while the person signs in and consents (10 minutes). */
const authorizationRequestSchema = new Schema<PendingAuthorization>(
  {
    /** SHA-256 of the handle carried by the pages. */
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    clientName: { type: String, required: true },
    redirectUri: { type: String, required: true },
    state: { type: String, default: null },
    codeChallenge: { type: String, required: true },
    scope: { type: String, required: true },
    resource: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/** An authorization code: stored as its SHA-256, single use, 60 s, bound to everything it was issued for. */
const authorizationCodeSchema = new Schema<CodeRecord>(
  {
    _id: { type: String, required: true },
    clientId: { type: String, required: true },
    redirectUri: { type: String, required: true },
    codeChallenge: { type: String, required: true },
    scope: { type: String, required: true },
    resource: { type: String, required: true },
    userId: { type: String, required: true },
    grantId: { type: String, required: true },
    /** The chain its redemption creates; fixed up front so a second redemption can revoke it. */
    chainId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/** A public client registered through RFC 7591 dynamic registration, or a revocation marker for a metadata-document client. */
const publicClientSchema = new Schema<StoredPublicClient>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true, enum: ['dynamic', 'metadata_document'] },
    clientName: { type: String, default: null },
    redirectUris: { type: [String], default: [] },
    grantTypes: { type: [String], default: [] },
    applicationType: { type: String, default: 'web' },
    createdAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { versionKey: false },
);

/**
 * The rotation of one refresh token: `_id` is the used token's hash, inserted uniquely (so of
 * two concurrent uses exactly one rotates). It keeps the pair it issued, sealed, so a retry within
 * the retry window gets the same pair; after the window the sealed pair is useless and reuse
 * revokes the chain.
 */
const refreshRotationSchema = new Schema<RefreshRotationRecord>(
  {
    _id: { type: String, required: true },
    chainId: { type: String, required: true },
    sealedPair: { type: String, default: null },
    retryUntil: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * An organization's policy for people's AI applications (grantAllowance.ts `AgentPolicy`), set by
 * an admin on the console's Settings page; `_id` is the organization id. None stored: the default.
 */
const agentPolicySchema = new Schema<AgentPolicyRecord>(
  {
    _id: { type: String, required: true },
    mode: { type: String, required: true, enum: ['spend', 'read_only'] },
    defaultDailyCredits: { type: Number, required: true },
    maxDailyCredits: { type: Number, default: null },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/** The area's models on the root's connection. */
export function oauthModels(connection: Connection) {
  return {
    clients: boundModel<ClientRecord>(connection, 'OAuthClient', oauthClientSchema, 'oauth_clients'),
    signingKeys: boundModel<SigningKeyRecord>(connection, 'OAuthSigningKey', signingKeySchema, 'oauth_signing_keys'),
    refreshTokens: boundModel<RefreshTokenRecord>(connection, 'OAuthRefreshToken', refreshTokenSchema, 'oauth_refresh_tokens'),
    clientRateWindows: boundModel<RateWindowRecord>(connection, 'OAuthClientRateWindow', clientRateWindowSchema, 'oauth_client_rate_windows'),
    consentGrants: boundModel<GrantRecord>(connection, 'OAuthConsentGrant', consentGrantSchema, 'oauth_consent_grants'),
    tokenChains: boundModel<ChainRecord>(connection, 'OAuthTokenChain', tokenChainSchema, 'oauth_token_chains'),
    authorizationRequests: boundModel<PendingAuthorization>(
      connection,
      'OAuthAuthorizationRequest',
      authorizationRequestSchema,
      'oauth_authorization_requests',
    ),
    authorizationCodes: boundModel<CodeRecord>(connection, 'OAuthAuthorizationCode', authorizationCodeSchema, 'oauth_authorization_codes'),
    publicClients: boundModel<StoredPublicClient>(connection, 'OAuthPublicClient', publicClientSchema, 'oauth_public_clients'),
    refreshRotations: boundModel<RefreshRotationRecord>(connection, 'OAuthRefreshRotation', refreshRotationSchema, 'oauth_refresh_rotations'),
    agentPolicies: boundModel<AgentPolicyRecord>(connection, 'OAuthAgentPolicy', agentPolicySchema, 'oauth_agent_policies'),
  };
}
