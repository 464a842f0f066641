import type { KeyEnvironment } from './apiKeyFormat';
import { ApiKey } from './models';

/**
 * The keys area's store: the one module that reads and writes `api_keys`. It answers with
 * plain records; verifying, naming, rotating and revoking keys live with the callers.
 */

/** A key as kept in `api_keys`: its hash, never its plaintext. */
export interface ApiKeyRecord {
  _id: string;
  /** Null on keys made before names existed (listed by their prefix). */
  name?: string | null;
  /** sha256 of the plaintext. */
  hash: string;
  displayPrefix: string;
  environment: KeyEnvironment;
  audience: string;
  orgId: string;
  workspaceId: string;
  applicationId: string;
  familyId: string;
  /** The keys this one succeeds by rotation, oldest first; absent on keys made before successions were kept. */
  predecessorKeyIds?: string[];
  scopes: string[];
  expiresAt?: Date | null;
  revokedAt?: Date | null;
  /** Accurate to the minute (keyUse.ts). */
  lastUsedAt?: Date | null;
  /** `user:<id>` or `operator`; null when not known. */
  createdBy?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
}

/** A key without its hash: what listings read. */
export type ListedKeyRecord = Omit<ApiKeyRecord, 'hash'>;

/** What naming a family needs of each of its keys. */
export type FamilyKeyRecord = Pick<ApiKeyRecord, '_id' | 'familyId' | 'name' | 'displayPrefix' | 'createdAt'>;

const FAMILY_KEY_FIELDS = { familyId: 1, name: 1, displayPrefix: 1, createdAt: 1 } as const;

/** Stores a new key. */
export async function insertKey(key: Omit<ApiKeyRecord, 'createdAt' | 'updatedAt' | 'lastUsedAt' | 'revokedAt'>): Promise<void> {
  await ApiKey.create(key);
}

/** A key by id whatever its organization (the operator CLI's lookups), or null. */
export async function findKey(keyId: string): Promise<ApiKeyRecord | null> {
  return ApiKey.findById(keyId).lean<ApiKeyRecord>();
}

/** A key of this organization, or null: another organization's key reads as absent. */
export async function findKeyOfOrg(orgId: string, keyId: string): Promise<ApiKeyRecord | null> {
  return ApiKey.findOne({ _id: keyId, orgId }).lean<ApiKeyRecord>();
}

/** A key of this organization without its hash, or null. */
export async function findListedKeyOfOrg(orgId: string, keyId: string): Promise<ListedKeyRecord | null> {
  return ApiKey.findOne({ _id: keyId, orgId }, { hash: 0 }).lean<ListedKeyRecord>();
}

/** The organization's keys without their hashes, oldest first. */
export async function keysOfOrg(orgId: string): Promise<ListedKeyRecord[]> {
  return ApiKey.find({ orgId }, { hash: 0 }).sort({ createdAt: 1, _id: 1 }).lean<ListedKeyRecord[]>();
}

/** Up to `limit` of the organization's keys without their hashes, newest first, after skipping `skip`. */
export async function pageOfKeysOfOrg(orgId: string, skip: number, limit: number): Promise<ListedKeyRecord[]> {
  return ApiKey.find({ orgId }, { hash: 0 }).sort({ createdAt: -1, _id: -1 }).skip(skip).limit(limit).lean<ListedKeyRecord[]>();
}

/** The newest key of a family of this organization (its application and name), or null when the family does not exist there. */
export async function newestKeyOfFamily(orgId: string, familyId: string): Promise<Pick<ApiKeyRecord, '_id' | 'applicationId' | 'name'> | null> {
  return ApiKey.findOne({ familyId, orgId }, { applicationId: 1, name: 1 })
    .sort({ createdAt: -1 })
    .lean<Pick<ApiKeyRecord, '_id' | 'applicationId' | 'name'>>();
}

/** The application of a key family of this organization, or null when the family does not exist there. */
export async function applicationOfFamily(orgId: string, familyId: string): Promise<string | null> {
  return (await ApiKey.findOne({ familyId, orgId }, { applicationId: 1 }).lean<Pick<ApiKeyRecord, 'applicationId'>>())?.applicationId ?? null;
}

/** Whether the organization has a key of this family. */
export async function familyExists(orgId: string, familyId: string): Promise<boolean> {
  return (await ApiKey.exists({ orgId, familyId })) !== null;
}

/** The organization's keys as naming their families needs them (any order), of the given families only when `familyIds` is set. */
export async function familyKeysOfOrg(orgId: string, familyIds?: readonly string[]): Promise<FamilyKeyRecord[]> {
  const filter = familyIds ? { orgId, familyId: { $in: [...familyIds] } } : { orgId };
  return ApiKey.find(filter, FAMILY_KEY_FIELDS).lean<FamilyKeyRecord[]>();
}

/** The organization's keys as naming their families needs them, newest first. */
export async function familyKeysOfOrgNewestFirst(orgId: string): Promise<FamilyKeyRecord[]> {
  return ApiKey.find({ orgId }, FAMILY_KEY_FIELDS).sort({ createdAt: -1 }).lean<FamilyKeyRecord[]>();
}

/** The name and display prefix of each of these keys of the organization (others, and absent ids, are left out). */
export async function namesOfKeys(orgId: string, keyIds: readonly string[]): Promise<Array<Pick<ApiKeyRecord, '_id' | 'name' | 'displayPrefix'>>> {
  if (keyIds.length === 0) return [];
  return ApiKey.find({ orgId, _id: { $in: [...keyIds] } }, { name: 1, displayPrefix: 1 }).lean<Array<Pick<ApiKeyRecord, '_id' | 'name' | 'displayPrefix'>>>();
}

/** The keys with these hashes (absent hashes have none). */
export async function keysByHashes(hashes: readonly string[]): Promise<ApiKeyRecord[]> {
  return ApiKey.find({ hash: { $in: [...hashes] } })
    .lean<ApiKeyRecord[]>()
    .exec();
}

/** Sets when a key stops working. */
export async function setKeyExpiry(keyId: string, expiresAt: Date): Promise<void> {
  await ApiKey.updateOne({ _id: keyId }, { $set: { expiresAt } });
}

/** Marks a key revoked at `at` unless it already is (revoking twice keeps the first time). */
export async function markKeyRevoked(keyId: string, at: Date): Promise<void> {
  // No update pipelines: FerretDB 1.x lacks them.
  await ApiKey.updateOne({ _id: keyId, revokedAt: null }, { $set: { revokedAt: at } });
}

/**
 * Stores that a key was used at `at` unless a use within `periodMs` before it is stored;
 * answers whether the key changed.
 */
export async function recordKeyUse(keyId: string, at: Date, periodMs: number): Promise<boolean> {
  const res = await ApiKey.updateOne(
    { _id: keyId, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: new Date(at.getTime() - periodMs) } }] },
    { $set: { lastUsedAt: at } },
  );
  return res.modifiedCount === 1;
}
