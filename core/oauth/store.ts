import type { JWK } from 'jose';
import type { AllowanceMode } from '../credits/agentAllowance';
import { isDuplicateKeyError } from '../store/connection';
import {
  AgentPolicyModel,
  AuthorizationCode,
  AuthorizationRequest,
  ClientRateWindow,
  ConsentGrant,
  OAuthClient,
  PublicClient,
  RefreshRotation,
  RefreshToken,
  SigningKey,
  TokenChain,
} from './models';

/**
 * The OAuth area's store: the one module that reads and writes its collections (M2M clients,
 * public clients, signing keys, refresh tokens and their rotations, token chains, consent
 * grants, pending authorizations and codes, rate windows). It answers with
 * plain records; the rules (rotation, reuse detection, limits, expiry) live with the callers.
 */

/** Creates a document; false when its unique key is taken (a concurrent or earlier insert won). */
async function insertUnlessTaken(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

// ---- M2M clients --------------------------------------------------------------------------

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

export async function insertOAuthClient(client: Omit<ClientRecord, 'revokedAt' | 'createdAt'>): Promise<void> {
  await OAuthClient.create(client);
}

export async function findOAuthClient(clientId: string): Promise<ClientRecord | null> {
  return OAuthClient.findById(clientId).lean<ClientRecord>();
}

/** An organization's clients, oldest first. */
export async function oauthClientsOf(orgId: string): Promise<ClientRecord[]> {
  return OAuthClient.find({ orgId }).sort({ createdAt: 1 }).lean<ClientRecord[]>();
}

export async function setOAuthClientSecrets(clientId: string, secrets: ClientSecretRecord[]): Promise<void> {
  await OAuthClient.updateOne({ _id: clientId }, { $set: { secrets } });
}

/** Marks a client revoked (a revoked one keeps its first revocation time). */
export async function revokeOAuthClientRecord(clientId: string, now: Date): Promise<void> {
  await OAuthClient.updateOne({ _id: clientId, revokedAt: null }, { $set: { revokedAt: now } });
}

// ---- public clients -----------------------------------------------------------------------

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

export async function findPublicClient(clientId: string): Promise<StoredPublicClient | null> {
  return PublicClient.findById(clientId).lean<StoredPublicClient>();
}

/** Stores a public client (or a revocation marker); false when one with this id is stored already. */
export async function insertPublicClient(client: Pick<StoredPublicClient, '_id' | 'kind' | 'createdAt'> & Partial<StoredPublicClient>): Promise<boolean> {
  return insertUnlessTaken(() => PublicClient.create(client));
}

export async function revokePublicClientRecord(clientId: string, now: Date): Promise<void> {
  await PublicClient.updateOne({ _id: clientId, revokedAt: null }, { $set: { revokedAt: now } });
}

// ---- signing keys -------------------------------------------------------------------------

export interface SigningKeyRecord {
  _id: string;
  alg: string;
  publicJwk: JWK;
  privateJwkSealed: string;
  createdAt: Date;
  supersededAt: Date | null;
}

export async function insertSigningKey(key: SigningKeyRecord): Promise<void> {
  await SigningKey.create(key);
}

/** The newest key no newer key has superseded, or null when there is none yet. */
export async function newestSigningKey(): Promise<SigningKeyRecord | null> {
  return SigningKey.findOne({ supersededAt: null }).sort({ createdAt: -1 }).lean<SigningKeyRecord>();
}

/** Ids of the keys not superseded. */
export async function unsupersededSigningKeyIds(): Promise<string[]> {
  return (await SigningKey.find({ supersededAt: null }, { _id: 1 }).lean<Array<{ _id: string }>>()).map((k) => k._id);
}

export async function supersedeSigningKeys(kids: readonly string[], now: Date): Promise<void> {
  await SigningKey.updateMany({ _id: { $in: [...kids] } }, { $set: { supersededAt: now } });
}

/** One key's public half and supersession (no private half). */
export async function findSigningKeyPublicHalf(kid: string): Promise<Pick<SigningKeyRecord, '_id' | 'alg' | 'publicJwk' | 'supersededAt'> | null> {
  return SigningKey.findById(kid, { alg: 1, publicJwk: 1, supersededAt: 1 }).lean<Pick<SigningKeyRecord, '_id' | 'alg' | 'publicJwk' | 'supersededAt'>>();
}

/** Every key's public half, newest first. */
export async function signingKeysNewestFirst(): Promise<Array<Pick<SigningKeyRecord, '_id' | 'publicJwk' | 'createdAt' | 'supersededAt'>>> {
  return SigningKey.find({}, { publicJwk: 1, createdAt: 1, supersededAt: 1 })
    .sort({ createdAt: -1 })
    .lean<Array<Pick<SigningKeyRecord, '_id' | 'publicJwk' | 'createdAt' | 'supersededAt'>>>();
}

// ---- refresh tokens and their rotations ---------------------------------------------------

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

export async function insertRefreshToken(token: Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>): Promise<void> {
  await RefreshToken.create(token);
}

export async function findRefreshTokenByHash(hash: string): Promise<RefreshTokenRecord | null> {
  return RefreshToken.findOne({ hash }).lean<RefreshTokenRecord>();
}

export async function markRefreshTokenUsed(tokenId: string, now: Date): Promise<void> {
  await RefreshToken.updateOne({ _id: tokenId }, { $set: { usedAt: now } });
}

export async function deleteRefreshTokenByHash(hash: string): Promise<void> {
  await RefreshToken.deleteOne({ hash });
}

/** Which refresh tokens a revocation reaches: every one of a chain, a client, a person, or a person with one client. */
export type RefreshTokenMatch = { chainId: string } | { clientId: string } | { userId: string; clientId?: string };

/** Revokes the live refresh tokens that match. */
export async function revokeRefreshTokens(match: RefreshTokenMatch, now: Date): Promise<void> {
  await RefreshToken.updateMany({ ...definedFields(match), revokedAt: null }, { $set: { revokedAt: now } });
}

/** Whether any token of an M2M chain is revoked (such a chain is revoked as a whole). */
export async function refreshChainHasRevokedToken(chainId: string): Promise<boolean> {
  return (await RefreshToken.exists({ chainId, revokedAt: { $ne: null } })) !== null;
}

/** Chains (up to `limit` tokens' worth) with a token expired by `now`. */
export async function chainIdsWithExpiredRefreshTokens(now: Date, limit: number): Promise<string[]> {
  const expired = await RefreshToken.find({ expiresAt: { $lte: now } }, { chainId: 1 })
    .limit(limit)
    .lean<Array<Pick<RefreshTokenRecord, 'chainId'>>>();
  return [...new Set(expired.map((t) => t.chainId))];
}

/** The expiry of every refresh token of these chains. */
export async function refreshTokenExpiriesOf(chainIds: readonly string[]): Promise<Array<Pick<RefreshTokenRecord, 'chainId' | 'expiresAt'>>> {
  return RefreshToken.find({ chainId: { $in: [...chainIds] } }, { chainId: 1, expiresAt: 1 }).lean<Array<Pick<RefreshTokenRecord, 'chainId' | 'expiresAt'>>>();
}

/** Deletes the tokens of these chains that expired by `now`; answers how many. */
export async function deleteExpiredRefreshTokensOf(chainIds: readonly string[], now: Date): Promise<number> {
  return (await RefreshToken.deleteMany({ chainId: { $in: [...chainIds] }, expiresAt: { $lte: now } })).deletedCount ?? 0;
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

/**
 * Records a token's rotation; false when it was rotated already.
 * FerretDB: concurrent conditional updates of one document may both apply, two inserts of one `_id` never both succeed.
 */
export async function insertRefreshRotation(rotation: RefreshRotationRecord): Promise<boolean> {
  return insertUnlessTaken(() => RefreshRotation.create(rotation));
}

export async function findRefreshRotation(tokenHash: string): Promise<RefreshRotationRecord | null> {
  return RefreshRotation.findById(tokenHash).lean<RefreshRotationRecord>();
}

// ---- token chains -------------------------------------------------------------------------

export interface ChainRecord {
  _id: string;
  userId: string;
  clientId: string;
  grantId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Stores a chain; false when it exists (its code was redeemed before). */
export async function insertTokenChain(chain: Omit<ChainRecord, 'revokedAt'>): Promise<boolean> {
  return insertUnlessTaken(() => TokenChain.create(chain));
}

export async function findTokenChain(chainId: string): Promise<ChainRecord | null> {
  return TokenChain.findById(chainId).lean<ChainRecord>();
}

export async function tokenChainExists(chainId: string): Promise<boolean> {
  return (await TokenChain.exists({ _id: chainId })) !== null;
}

/** Which chains a revocation reaches: one chain, every chain of a client, of a person, or of a person with one client. */
export type TokenChainMatch = { _id: string } | { clientId: string } | { userId: string; clientId?: string };

/** Ids of the live chains that match. */
export async function liveTokenChainIds(match: TokenChainMatch): Promise<string[]> {
  return (await TokenChain.find({ ...definedFields(match), revokedAt: null }, { _id: 1 }).lean<Array<{ _id: string }>>()).map((c) => c._id);
}

/** Revokes the live chains that match. */
export async function revokeTokenChains(match: TokenChainMatch, now: Date): Promise<void> {
  await TokenChain.updateMany({ ...definedFields(match), revokedAt: null }, { $set: { revokedAt: now } });
}

// ---- consent grants -----------------------------------------------------------------------

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

/** Stores a grant; false when the person's grant to this client exists already. */
export async function insertConsentGrant(grant: GrantRecord): Promise<boolean> {
  return insertUnlessTaken(() => ConsentGrant.create(grant));
}

export async function findConsentGrantByPair(pairKey: string): Promise<GrantRecord | null> {
  return ConsentGrant.findOne({ pairKey }).lean<GrantRecord>();
}

/** A person's grants, oldest first. */
export async function consentGrantsOf(userId: string): Promise<GrantRecord[]> {
  return ConsentGrant.find({ userId }).sort({ createdAt: 1 }).lean<GrantRecord[]>();
}

/** The grants of an organization's people (those made since grants name their organization). */
export async function consentGrantsOfOrg(orgId: string): Promise<GrantRecord[]> {
  return ConsentGrant.find({ orgId }).lean<GrantRecord[]>();
}

/** The person's grant with this id, or null (another person's grant is not found). */
export async function findConsentGrantOfUser(userId: string, grantId: string): Promise<GrantRecord | null> {
  return ConsentGrant.findOne({ _id: grantId, userId }).lean<GrantRecord>();
}

export async function setConsentGrantAllowance(grantId: string, allowance: { mode: AllowanceMode; dailyCredits: number | null }): Promise<void> {
  await ConsentGrant.updateOne({ _id: grantId }, { $set: { allowanceMode: allowance.mode, dailyCredits: allowance.dailyCredits } });
}

// ---- AI application policies --------------------------------------------------------------

export interface AgentPolicyRecord {
  _id: string;
  mode: 'spend' | 'read_only';
  defaultDailyCredits: number;
  maxDailyCredits: number | null;
  updatedAt: Date;
}

export async function findAgentPolicy(orgId: string): Promise<AgentPolicyRecord | null> {
  return AgentPolicyModel.findById(orgId).lean<AgentPolicyRecord>();
}

export async function storeAgentPolicy(policy: AgentPolicyRecord): Promise<void> {
  await AgentPolicyModel.replaceOne({ _id: policy._id }, policy, { upsert: true });
}

export async function deleteConsentGrant(grantId: string): Promise<void> {
  await ConsentGrant.deleteOne({ _id: grantId });
}

// ---- pending authorizations and codes -----------------------------------------------------

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

export async function insertAuthorizationRequest(request: PendingAuthorization): Promise<void> {
  await AuthorizationRequest.create(request);
}

export async function findAuthorizationRequest(handleHash: string): Promise<PendingAuthorization | null> {
  return AuthorizationRequest.findById(handleHash).lean<PendingAuthorization>();
}

/**
 * Deletes a pending request; true for exactly one caller.
 * FerretDB: of concurrent deletes of one document only one reports it deleted, as on MongoDB.
 */
export async function deleteAuthorizationRequest(handleHash: string): Promise<boolean> {
  return (await AuthorizationRequest.deleteOne({ _id: handleHash })).deletedCount === 1;
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

export async function insertAuthorizationCode(code: CodeRecord): Promise<void> {
  await AuthorizationCode.create(code);
}

export async function findAuthorizationCode(codeHash: string): Promise<CodeRecord | null> {
  return AuthorizationCode.findById(codeHash).lean<CodeRecord>();
}

/**
 * Deletes sign-in records past their cut-offs; answers how many.
 * FerretDB: 1.x has no TTL indexes, so expired records are deleted by the maintenance schedule.
 */
export async function deleteExpiredSignInRecords(cutoffs: { requests: Date; codes: Date; rotations: Date }): Promise<number> {
  const results = await Promise.all([
    AuthorizationRequest.deleteMany({ expiresAt: { $lte: cutoffs.requests } }),
    AuthorizationCode.deleteMany({ expiresAt: { $lte: cutoffs.codes } }),
    RefreshRotation.deleteMany({ retryUntil: { $lte: cutoffs.rotations } }),
  ]);
  return results.reduce((sum, r) => sum + r.deletedCount, 0);
}

// ---- client rate windows ------------------------------------------------------------------

export interface RateWindowRecord {
  /** The client id. */
  _id: string;
  windowStart: number;
  count: number;
}

/** Counts one request in the client's window starting at `windowStart` if it has room; false otherwise. */
export async function countInRateWindow(clientId: string, windowStart: number, perMinute: number): Promise<boolean> {
  return (await ClientRateWindow.findOneAndUpdate({ _id: clientId, windowStart, count: { $lt: perMinute } }, { $inc: { count: 1 } }).lean()) !== null;
}

/** Starts the client's window at `windowStart` with one request, if its stored window is older; false otherwise. */
export async function restartRateWindow(clientId: string, windowStart: number): Promise<boolean> {
  return (await ClientRateWindow.findOneAndUpdate({ _id: clientId, windowStart: { $lt: windowStart } }, { $set: { windowStart, count: 1 } }).lean()) !== null;
}

export async function findRateWindow(clientId: string): Promise<RateWindowRecord | null> {
  return ClientRateWindow.findById(clientId, { windowStart: 1, count: 1 }).lean<RateWindowRecord>();
}

/** Creates the client's window with one request; false when another request created it first. */
export async function insertRateWindow(clientId: string, windowStart: number): Promise<boolean> {
  return insertUnlessTaken(() => ClientRateWindow.create({ _id: clientId, windowStart, count: 1 }));
}

/** The fields of a match that are set (a filter on an undefined field would match only documents without it). */
function definedFields(match: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(match).filter(([, v]) => v !== undefined));
}
