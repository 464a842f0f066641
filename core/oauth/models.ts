import { Schema, model } from 'mongoose';

/**
 * OAuth clients of the tool server (SPEC 5.2). A client belongs to one organization and acts
 * through a workspace and application made for it at provisioning, so everything the developer
 * API attributes to a key (limits, ledger, idempotency) has a home for tool calls too.
 * `grantTypes` and `tokenEndpointAuthMethods` leave room for interactive (browser) clients.
 */
const clientSecretSchema = new Schema(
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

const oauthClientSchema = new Schema(
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
export const OAuthClient = model('OAuthClient', oauthClientSchema, 'oauth_clients');

/** Token signing keys, shared by every API replica; private halves sealed with SECRETS_ENCRYPTION_KEY. */
const signingKeySchema = new Schema(
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
export const SigningKey = model('OAuthSigningKey', signingKeySchema, 'oauth_signing_keys');

/**
 * One refresh token. Every token issued from the same client_credentials grant shares a
 * `chainId`; using a token marks it used and issues its successor, and presenting a used one
 * again revokes the whole chain (RFC 9700 section 4.14.2).
 */
const refreshTokenSchema = new Schema(
  {
    _id: { type: String, required: true },
    hash: { type: String, required: true, unique: true },
    clientId: { type: String, required: true, index: true },
    chainId: { type: String, required: true, index: true },
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
export const RefreshToken = model('OAuthRefreshToken', refreshTokenSchema, 'oauth_refresh_tokens');

/** The current one-minute window of a client's rate limit: one document per client. */
const clientRateWindowSchema = new Schema(
  {
    _id: { type: String, required: true },
    windowStart: { type: Number, required: true },
    count: { type: Number, required: true },
  },
  { versionKey: false },
);
export const ClientRateWindow = model('OAuthClientRateWindow', clientRateWindowSchema, 'oauth_client_rate_windows');
