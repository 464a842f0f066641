import type { Connection } from 'mongoose';
import type { AllowanceMode } from '../credits/agentAllowance';
import { isDuplicateKeyError } from '../store/connection';
import {
  oauthModels,
  type AgentPolicyRecord,
  type ChainRecord,
  type ClientRecord,
  type ClientSecretRecord,
  type CodeRecord,
  type GrantRecord,
  type PendingAuthorization,
  type RateWindowRecord,
  type RefreshRotationRecord,
  type RefreshTokenRecord,
  type SigningKeyRecord,
  type StoredPublicClient,
} from './models';

export type {
  AgentPolicyRecord,
  ChainRecord,
  ClientRecord,
  ClientSecretRecord,
  CodeRecord,
  GrantRecord,
  PendingAuthorization,
  RateWindowRecord,
  RefreshRotationRecord,
  RefreshTokenRecord,
  SigningKeyRecord,
  StoredPublicClient,
} from './models';

/**
 * The OAuth area's store: the one module that reads and writes its collections (M2M clients,
 * public clients, signing keys, refresh tokens and their rotations, token chains, consent
 * grants, pending authorizations and codes, rate windows). It answers with
 * plain records; the rules (rotation, reuse detection, limits, expiry) live with the callers.
 */

/** Which refresh tokens a revocation reaches: every one of a chain, a client, a person, or a person with one client. */
export type RefreshTokenMatch = { chainId: string } | { clientId: string } | { userId: string; clientId?: string };

/** Which chains a revocation reaches: one chain, every chain of a client, of a person, or of a person with one client. */
export type TokenChainMatch = { _id: string } | { clientId: string } | { userId: string; clientId?: string };

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

/** The fields of a match that are set (a filter on an undefined field would match only documents without it). */
function definedFields(match: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(match).filter(([, v]) => v !== undefined));
}

/** The OAuth area's store on the root's connection (core/deps.ts `createStores`). */
export function createOAuthStore(connection: Connection) {
  const {
    clients: OAuthClient,
    publicClients: PublicClient,
    signingKeys: SigningKey,
    refreshTokens: RefreshToken,
    refreshRotations: RefreshRotation,
    tokenChains: TokenChain,
    consentGrants: ConsentGrant,
    agentPolicies: AgentPolicyModel,
    authorizationRequests: AuthorizationRequest,
    authorizationCodes: AuthorizationCode,
    clientRateWindows: ClientRateWindow,
  } = oauthModels(connection);
  return {
    // ---- M2M clients --------------------------------------------------------------------------

    async insertOAuthClient(client: Omit<ClientRecord, 'revokedAt' | 'createdAt'>): Promise<void> {
      await OAuthClient.create(client);
    },

    async findOAuthClient(clientId: string): Promise<ClientRecord | null> {
      return OAuthClient.findById(clientId).lean<ClientRecord>();
    },

    /** An organization's clients, oldest first. */
    async oauthClientsOf(orgId: string): Promise<ClientRecord[]> {
      return OAuthClient.find({ orgId }).sort({ createdAt: 1 }).lean<ClientRecord[]>();
    },

    async setOAuthClientSecrets(clientId: string, secrets: ClientSecretRecord[]): Promise<void> {
      await OAuthClient.updateOne({ _id: clientId }, { $set: { secrets } });
    },

    /** Marks a client revoked (a revoked one keeps its first revocation time). */
    async revokeOAuthClientRecord(clientId: string, now: Date): Promise<void> {
      await OAuthClient.updateOne({ _id: clientId, revokedAt: null }, { $set: { revokedAt: now } });
    },

    // ---- public clients -----------------------------------------------------------------------

    async findPublicClient(clientId: string): Promise<StoredPublicClient | null> {
      return PublicClient.findById(clientId).lean<StoredPublicClient>();
    },

    /** Stores a public client (or a revocation marker); false when one with this id is stored already. */
    async insertPublicClient(client: Pick<StoredPublicClient, '_id' | 'kind' | 'createdAt'> & Partial<StoredPublicClient>): Promise<boolean> {
      return insertUnlessTaken(() => PublicClient.create(client));
    },

    async revokePublicClientRecord(clientId: string, now: Date): Promise<void> {
      await PublicClient.updateOne({ _id: clientId, revokedAt: null }, { $set: { revokedAt: now } });
    },

    /** Deletes a public client or revocation marker (a test that revokes a metadata-document URL takes its marker back). */
    async deletePublicClient(clientId: string): Promise<void> {
      await PublicClient.deleteOne({ _id: clientId });
    },

    async countPublicClients(kind: StoredPublicClient['kind']): Promise<number> {
      return PublicClient.countDocuments({ kind });
    },

    // ---- signing keys -------------------------------------------------------------------------

    async insertSigningKey(key: SigningKeyRecord): Promise<void> {
      await SigningKey.create(key);
    },

    /** The newest key no newer key has superseded, or null when there is none yet. */
    async newestSigningKey(): Promise<SigningKeyRecord | null> {
      return SigningKey.findOne({ supersededAt: null }).sort({ createdAt: -1 }).lean<SigningKeyRecord>();
    },

    /** Ids of the keys not superseded. */
    async unsupersededSigningKeyIds(): Promise<string[]> {
      return (await SigningKey.find({ supersededAt: null }, { _id: 1 }).lean<Array<{ _id: string }>>()).map((k) => k._id);
    },

    async supersedeSigningKeys(kids: readonly string[], now: Date): Promise<void> {
      await SigningKey.updateMany({ _id: { $in: [...kids] } }, { $set: { supersededAt: now } });
    },

    /** One key's public half and supersession (no private half). */
    async findSigningKeyPublicHalf(kid: string): Promise<Pick<SigningKeyRecord, '_id' | 'alg' | 'publicJwk' | 'supersededAt'> | null> {
      return SigningKey.findById(kid, { alg: 1, publicJwk: 1, supersededAt: 1 }).lean<Pick<SigningKeyRecord, '_id' | 'alg' | 'publicJwk' | 'supersededAt'>>();
    },

    /** One key whole, its sealed private half included. */
    async findSigningKey(kid: string): Promise<SigningKeyRecord | null> {
      return SigningKey.findById(kid).lean<SigningKeyRecord>();
    },

    /** Every key's public half, newest first. */
    async signingKeysNewestFirst(): Promise<Array<Pick<SigningKeyRecord, '_id' | 'publicJwk' | 'createdAt' | 'supersededAt'>>> {
      return SigningKey.find({}, { publicJwk: 1, createdAt: 1, supersededAt: 1 })
        .sort({ createdAt: -1 })
        .lean<Array<Pick<SigningKeyRecord, '_id' | 'publicJwk' | 'createdAt' | 'supersededAt'>>>();
    },

    // ---- refresh tokens and their rotations ---------------------------------------------------

    async insertRefreshToken(token: Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>): Promise<void> {
      await RefreshToken.create(token);
    },

    async findRefreshTokenByHash(hash: string): Promise<RefreshTokenRecord | null> {
      return RefreshToken.findOne({ hash }).lean<RefreshTokenRecord>();
    },

    async markRefreshTokenUsed(tokenId: string, now: Date): Promise<void> {
      await RefreshToken.updateOne({ _id: tokenId }, { $set: { usedAt: now } });
    },

    async deleteRefreshTokenByHash(hash: string): Promise<void> {
      await RefreshToken.deleteOne({ hash });
    },

    /** Stores tokens as given (a maintenance run's old chains are set up this way). */
    async insertRefreshTokens(tokens: Array<Omit<RefreshTokenRecord, 'usedAt' | 'revokedAt'>>): Promise<void> {
      await RefreshToken.insertMany(tokens);
    },

    async refreshTokensOfClient(clientId: string): Promise<RefreshTokenRecord[]> {
      return RefreshToken.find({ clientId }).lean<RefreshTokenRecord[]>();
    },

    async countLiveRefreshTokensOfChain(chainId: string): Promise<number> {
      return RefreshToken.countDocuments({ chainId, revokedAt: null });
    },

    /** Revokes the live refresh tokens that match. */
    async revokeRefreshTokens(match: RefreshTokenMatch, now: Date): Promise<void> {
      await RefreshToken.updateMany({ ...definedFields(match), revokedAt: null }, { $set: { revokedAt: now } });
    },

    /** Whether any token of an M2M chain is revoked (such a chain is revoked as a whole). */
    async refreshChainHasRevokedToken(chainId: string): Promise<boolean> {
      return (await RefreshToken.exists({ chainId, revokedAt: { $ne: null } })) !== null;
    },

    /** Chains (up to `limit` tokens' worth) with a token expired by `now`. */
    async chainIdsWithExpiredRefreshTokens(now: Date, limit: number): Promise<string[]> {
      const expired = await RefreshToken.find({ expiresAt: { $lte: now } }, { chainId: 1 })
        .limit(limit)
        .lean<Array<Pick<RefreshTokenRecord, 'chainId'>>>();
      return [...new Set(expired.map((t) => t.chainId))];
    },

    /** The expiry of every refresh token of these chains. */
    async refreshTokenExpiriesOf(chainIds: readonly string[]): Promise<Array<Pick<RefreshTokenRecord, 'chainId' | 'expiresAt'>>> {
      return RefreshToken.find({ chainId: { $in: [...chainIds] } }, { chainId: 1, expiresAt: 1 }).lean<
        Array<Pick<RefreshTokenRecord, 'chainId' | 'expiresAt'>>
      >();
    },

    /** Deletes the tokens of these chains that expired by `now`; answers how many. */
    async deleteExpiredRefreshTokensOf(chainIds: readonly string[], now: Date): Promise<number> {
      return (await RefreshToken.deleteMany({ chainId: { $in: [...chainIds] }, expiresAt: { $lte: now } })).deletedCount ?? 0;
    },

    /**
     * Records a token's rotation; false when it was rotated already.
     * FerretDB: concurrent conditional updates of one document may both apply, two inserts of one `_id` never both succeed.
     */
    async insertRefreshRotation(rotation: RefreshRotationRecord): Promise<boolean> {
      return insertUnlessTaken(() => RefreshRotation.create(rotation));
    },

    async findRefreshRotation(tokenHash: string): Promise<RefreshRotationRecord | null> {
      return RefreshRotation.findById(tokenHash).lean<RefreshRotationRecord>();
    },

    /** A rotation that kept the pair it issued, or null. */
    async findRotationKeepingPair(): Promise<RefreshRotationRecord | null> {
      return RefreshRotation.findOne({ sealedPair: { $ne: null } }).lean<RefreshRotationRecord>();
    },

    /** Ends every rotation's retry window at `at` (a test moves past the window instead of waiting). */
    async endRefreshRetryWindows(at: Date): Promise<void> {
      await RefreshRotation.updateMany({}, { $set: { retryUntil: at } });
    },

    // ---- token chains -------------------------------------------------------------------------

    /** Stores a chain; false when it exists (its code was redeemed before). */
    async insertTokenChain(chain: Omit<ChainRecord, 'revokedAt'>): Promise<boolean> {
      return insertUnlessTaken(() => TokenChain.create(chain));
    },

    async findTokenChain(chainId: string): Promise<ChainRecord | null> {
      return TokenChain.findById(chainId).lean<ChainRecord>();
    },

    async tokenChainExists(chainId: string): Promise<boolean> {
      return (await TokenChain.exists({ _id: chainId })) !== null;
    },

    /** Ids of the live chains that match. */
    async liveTokenChainIds(match: TokenChainMatch): Promise<string[]> {
      return (await TokenChain.find({ ...definedFields(match), revokedAt: null }, { _id: 1 }).lean<Array<{ _id: string }>>()).map((c) => c._id);
    },

    /** Revokes the live chains that match. */
    async revokeTokenChains(match: TokenChainMatch, now: Date): Promise<void> {
      await TokenChain.updateMany({ ...definedFields(match), revokedAt: null }, { $set: { revokedAt: now } });
    },

    // ---- consent grants -----------------------------------------------------------------------

    /** Stores a grant; false when the person's grant to this client exists already. */
    async insertConsentGrant(grant: GrantRecord): Promise<boolean> {
      return insertUnlessTaken(() => ConsentGrant.create(grant));
    },

    async findConsentGrantByPair(pairKey: string): Promise<GrantRecord | null> {
      return ConsentGrant.findOne({ pairKey }).lean<GrantRecord>();
    },

    /** A person's grants, oldest first. */
    async consentGrantsOf(userId: string): Promise<GrantRecord[]> {
      return ConsentGrant.find({ userId }).sort({ createdAt: 1 }).lean<GrantRecord[]>();
    },

    /** The grants of an organization's people (those made since grants name their organization). */
    async consentGrantsOfOrg(orgId: string): Promise<GrantRecord[]> {
      return ConsentGrant.find({ orgId }).lean<GrantRecord[]>();
    },

    /** The person's grant with this id, or null (another person's grant is not found). */
    async findConsentGrantOfUser(userId: string, grantId: string): Promise<GrantRecord | null> {
      return ConsentGrant.findOne({ _id: grantId, userId }).lean<GrantRecord>();
    },

    async setConsentGrantAllowance(grantId: string, allowance: { mode: AllowanceMode; dailyCredits: number | null }): Promise<void> {
      await ConsentGrant.updateOne({ _id: grantId }, { $set: { allowanceMode: allowance.mode, dailyCredits: allowance.dailyCredits } });
    },

    // ---- AI application policies --------------------------------------------------------------

    async findAgentPolicy(orgId: string): Promise<AgentPolicyRecord | null> {
      return AgentPolicyModel.findById(orgId).lean<AgentPolicyRecord>();
    },

    async storeAgentPolicy(policy: AgentPolicyRecord): Promise<void> {
      await AgentPolicyModel.replaceOne({ _id: policy._id }, policy, { upsert: true });
    },

    async deleteConsentGrant(grantId: string): Promise<void> {
      await ConsentGrant.deleteOne({ _id: grantId });
    },

    // ---- pending authorizations and codes -----------------------------------------------------

    async insertAuthorizationRequest(request: PendingAuthorization): Promise<void> {
      await AuthorizationRequest.create(request);
    },

    async findAuthorizationRequest(handleHash: string): Promise<PendingAuthorization | null> {
      return AuthorizationRequest.findById(handleHash).lean<PendingAuthorization>();
    },

    async countAuthorizationRequestsOfClient(clientId: string): Promise<number> {
      return AuthorizationRequest.countDocuments({ clientId });
    },

    /**
     * Deletes a pending request; true for exactly one caller.
     * FerretDB: of concurrent deletes of one document only one reports it deleted, as on MongoDB.
     */
    async deleteAuthorizationRequest(handleHash: string): Promise<boolean> {
      return (await AuthorizationRequest.deleteOne({ _id: handleHash })).deletedCount === 1;
    },

    async insertAuthorizationCode(code: CodeRecord): Promise<void> {
      await AuthorizationCode.create(code);
    },

    async findAuthorizationCode(codeHash: string): Promise<CodeRecord | null> {
      return AuthorizationCode.findById(codeHash).lean<CodeRecord>();
    },

    async countAuthorizationCodesOfClient(clientId: string): Promise<number> {
      return AuthorizationCode.countDocuments({ clientId });
    },

    /** Makes codes expire at `at`, one code (by its hash) or all (a test ages them instead of waiting); answers how many it found. */
    async expireAuthorizationCodes(at: Date, codeHash?: string): Promise<number> {
      return (await AuthorizationCode.updateMany(codeHash ? { _id: codeHash } : {}, { $set: { expiresAt: at } })).matchedCount;
    },

    /**
     * Deletes sign-in records past their cut-offs; answers how many.
     * FerretDB: 1.x has no TTL indexes, so expired records are deleted by the maintenance schedule.
     */
    async deleteExpiredSignInRecords(cutoffs: { requests: Date; codes: Date; rotations: Date }): Promise<number> {
      const results = await Promise.all([
        AuthorizationRequest.deleteMany({ expiresAt: { $lte: cutoffs.requests } }),
        AuthorizationCode.deleteMany({ expiresAt: { $lte: cutoffs.codes } }),
        RefreshRotation.deleteMany({ retryUntil: { $lte: cutoffs.rotations } }),
      ]);
      return results.reduce((sum, r) => sum + r.deletedCount, 0);
    },

    // ---- client rate windows ------------------------------------------------------------------

    /** Counts one request in the client's window starting at `windowStart` if it has room; false otherwise. */
    async countInRateWindow(clientId: string, windowStart: number, perMinute: number): Promise<boolean> {
      return (await ClientRateWindow.findOneAndUpdate({ _id: clientId, windowStart, count: { $lt: perMinute } }, { $inc: { count: 1 } }).lean()) !== null;
    },

    /** Starts the client's window at `windowStart` with one request, if its stored window is older; false otherwise. */
    async restartRateWindow(clientId: string, windowStart: number): Promise<boolean> {
      return (
        (await ClientRateWindow.findOneAndUpdate({ _id: clientId, windowStart: { $lt: windowStart } }, { $set: { windowStart, count: 1 } }).lean()) !== null
      );
    },

    async findRateWindow(clientId: string): Promise<RateWindowRecord | null> {
      return ClientRateWindow.findById(clientId, { windowStart: 1, count: 1 }).lean<RateWindowRecord>();
    },

    /** Creates the client's window with one request; false when another request created it first. */
    async insertRateWindow(clientId: string, windowStart: number): Promise<boolean> {
      return insertUnlessTaken(() => ClientRateWindow.create({ _id: clientId, windowStart, count: 1 }));
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;

/** What the area's functions read and write through: the root's stores (`deps.stores`) or any object holding the OAuth store. */
export interface OAuthStores {
  oauth: OAuthStore;
}
