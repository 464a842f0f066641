import type { Connection } from 'mongoose';
import { keysModels, type ApiKeyRecord } from './models';

export type { ApiKeyRecord } from './models';

/**
 * The keys area's store: the one module that reads and writes `api_keys`. It answers with
 * plain records; verifying, naming, rotating and revoking keys live with the callers.
 */

/** A key without its hash: what listings read. */
export type ListedKeyRecord = Omit<ApiKeyRecord, 'hash'>;

/** What naming a family needs of each of its keys. */
export type FamilyKeyRecord = Pick<ApiKeyRecord, '_id' | 'familyId' | 'name' | 'displayPrefix' | 'createdAt'>;

const FAMILY_KEY_FIELDS = { familyId: 1, name: 1, displayPrefix: 1, createdAt: 1 } as const;

/** What naming a key, its family and whether it still works needs: no scopes, no hash. */
export type NamedKeyRecord = FamilyKeyRecord & Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>;

const NAMED_KEY_FIELDS = { ...FAMILY_KEY_FIELDS, revokedAt: 1, expiresAt: 1 } as const;

/** Reads of every key of an organization ask for this many at once: the store's default first batch (101) leaves a round trip more for a larger organization. */
const ORG_KEYS_BATCH = 1000;

/** The keys area's store on the root's connection (core/deps.ts `createStores`). */
export function createKeysStore(connection: Connection) {
  const { apiKeys: ApiKey } = keysModels(connection);
  return {
    /** Stores a new key. */
    async insertKey(key: Omit<ApiKeyRecord, 'createdAt' | 'updatedAt' | 'lastUsedAt' | 'revokedAt'>): Promise<void> {
      await ApiKey.create(key);
    },

    /** A key by id whatever its organization (the operator CLI's lookups), or null. */
    async findKey(keyId: string): Promise<ApiKeyRecord | null> {
      return ApiKey.findById(keyId).lean<ApiKeyRecord>();
    },

    /** A key of this organization, or null: another organization's key reads as absent. */
    async findKeyOfOrg(orgId: string, keyId: string): Promise<ApiKeyRecord | null> {
      return ApiKey.findOne({ _id: keyId, orgId }).lean<ApiKeyRecord>();
    },

    /** A key of this organization without its hash, or null. */
    async findListedKeyOfOrg(orgId: string, keyId: string): Promise<ListedKeyRecord | null> {
      return ApiKey.findOne({ _id: keyId, orgId }, { hash: 0 }).lean<ListedKeyRecord>();
    },

    /** The organization's keys without their hashes, oldest first. */
    async keysOfOrg(orgId: string): Promise<ListedKeyRecord[]> {
      return ApiKey.find({ orgId }, { hash: 0 }).sort({ createdAt: 1, _id: 1 }).lean<ListedKeyRecord[]>();
    },

    /** Up to `limit` of the organization's keys without their hashes, newest first, after skipping `skip`. */
    async pageOfKeysOfOrg(orgId: string, skip: number, limit: number): Promise<ListedKeyRecord[]> {
      return ApiKey.find({ orgId }, { hash: 0 }).sort({ createdAt: -1, _id: -1 }).skip(skip).limit(limit).lean<ListedKeyRecord[]>();
    },

    /** The newest key of a family of this organization (its application and name), or null when the family does not exist there. */
    async newestKeyOfFamily(orgId: string, familyId: string): Promise<Pick<ApiKeyRecord, '_id' | 'applicationId' | 'name'> | null> {
      return ApiKey.findOne({ familyId, orgId }, { applicationId: 1, name: 1 })
        .sort({ createdAt: -1 })
        .lean<Pick<ApiKeyRecord, '_id' | 'applicationId' | 'name'>>();
    },

    /** The application of a key family of this organization, or null when the family does not exist there. */
    async applicationOfFamily(orgId: string, familyId: string): Promise<string | null> {
      return (await ApiKey.findOne({ familyId, orgId }, { applicationId: 1 }).lean<Pick<ApiKeyRecord, 'applicationId'>>())?.applicationId ?? null;
    },

    /** Whether the organization has a key of this family. */
    async familyExists(orgId: string, familyId: string): Promise<boolean> {
      return (await ApiKey.exists({ orgId, familyId })) !== null;
    },

    /** The organization's keys as naming their families needs them (any order), of the given families only when `familyIds` is set. */
    async familyKeysOfOrg(orgId: string, familyIds?: readonly string[]): Promise<FamilyKeyRecord[]> {
      const filter = familyIds ? { orgId, familyId: { $in: [...familyIds] } } : { orgId };
      return ApiKey.find(filter, FAMILY_KEY_FIELDS).batchSize(ORG_KEYS_BATCH).lean<FamilyKeyRecord[]>();
    },

    /** The organization's keys as naming them and their families needs, in no order. */
    async namedKeysOfOrg(orgId: string): Promise<NamedKeyRecord[]> {
      return ApiKey.find({ orgId }, NAMED_KEY_FIELDS).batchSize(ORG_KEYS_BATCH).lean<NamedKeyRecord[]>();
    },

    /** The organization's keys as naming their families needs them, newest first. */
    async familyKeysOfOrgNewestFirst(orgId: string): Promise<FamilyKeyRecord[]> {
      return ApiKey.find({ orgId }, FAMILY_KEY_FIELDS).sort({ createdAt: -1 }).lean<FamilyKeyRecord[]>();
    },

    /** The name and display prefix of each of these keys of the organization (others, and absent ids, are left out). */
    async namesOfKeys(orgId: string, keyIds: readonly string[]): Promise<Array<Pick<ApiKeyRecord, '_id' | 'name' | 'displayPrefix'>>> {
      if (keyIds.length === 0) return [];
      return ApiKey.find({ orgId, _id: { $in: [...keyIds] } }, { name: 1, displayPrefix: 1 }).lean<
        Array<Pick<ApiKeyRecord, '_id' | 'name' | 'displayPrefix'>>
      >();
    },

    /** The keys with these hashes (absent hashes have none). */
    async keysByHashes(hashes: readonly string[]): Promise<ApiKeyRecord[]> {
      return ApiKey.find({ hash: { $in: [...hashes] } })
        .lean<ApiKeyRecord[]>()
        .exec();
    },

    /** The keys created at or after `since` and never used, newest first, at most `limit`. */
    async unusedKeysCreatedSince(since: Date, limit: number): Promise<ApiKeyRecord[]> {
      return ApiKey.find({ createdAt: { $gte: since }, lastUsedAt: null })
        .sort({ createdAt: -1 })
        .limit(limit)
        .lean<ApiKeyRecord[]>()
        .exec();
    },

    /** Sets when a key stops working. */
    async setKeyExpiry(keyId: string, expiresAt: Date): Promise<void> {
      await ApiKey.updateOne({ _id: keyId }, { $set: { expiresAt } });
    },

    /** Marks a key revoked at `at` unless it already is (revoking twice keeps the first time). */
    async markKeyRevoked(keyId: string, at: Date): Promise<void> {
      // No update pipelines: FerretDB 1.x lacks them.
      await ApiKey.updateOne({ _id: keyId, revokedAt: null }, { $set: { revokedAt: at } });
    },

    /**
     * Stores that a key was used at `at` unless a use within `periodMs` before it is stored;
     * answers whether the key changed.
     */
    async recordKeyUse(keyId: string, at: Date, periodMs: number): Promise<boolean> {
      const { filter, update } = keyUseUpdate(keyId, at, periodMs);
      const res = await ApiKey.updateOne(filter, update);
      return res.modifiedCount === 1;
    },

    /** Several keys' uses, each as `recordKeyUse` would write it, in one store command. */
    async recordKeyUses(uses: ReadonlyArray<{ keyId: string; at: Date }>, periodMs: number): Promise<void> {
      await ApiKey.bulkWrite(
        uses.map(({ keyId, at }) => ({ updateOne: keyUseUpdate(keyId, at, periodMs) })),
        { ordered: false },
      );
    },
  };
}

/** A key's use at `at`, written only when the stored use is older than `periodMs` (or none). */
function keyUseUpdate(keyId: string, at: Date, periodMs: number) {
  return {
    filter: { _id: keyId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: new Date(at.getTime() - periodMs) } }] },
    update: { $set: { lastUsedAt: at } },
  };
}

export type KeysStore = ReturnType<typeof createKeysStore>;

/** What the area's functions read and write through: the root's stores (`deps.stores`) or any object holding the keys store. */
export interface KeysStores {
  keys: KeysStore;
}
