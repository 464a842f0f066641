import type { Config } from '../config';
import type { AgentOfCall } from '../credits/agentAllowance';
import { sha256Hex } from '../crypto/hash';
import { GatheredReads } from '../store/gatheredReads';
import { MISS_SPACING_MS, ReadCache, waitUntilReadCachesExpire } from '../store/readCache';
import { newId } from '../ids';
import type { TenancyStores } from '../tenancy/store';
import { requireOrganization } from '../tenancy/provisioning';
import { displayPrefix, generateApiKey, parseApiKey, type KeyEnvironment } from './apiKeyFormat';
import { checkKeyName, defaultKeyName } from './keyNames';
import type { ApiKeyRecord, KeysStore, KeysStores, ListedKeyRecord } from './store';
import { isPermission, type Permission } from './permissions';

/** What a request knows about its caller once the key has been verified. */
export interface KeyPrincipal {
  keyId: string;
  orgId: string;
  workspaceId: string;
  applicationId: string;
  familyId: string;
  /** The keys this one succeeds by rotation, oldest first: every limit set on one of them holds this key too. */
  predecessorKeyIds?: readonly string[];
  audience: string;
  scopes: Permission[];
  /** Set on a tool call of a person's connected AI application: held to the allowance the person chose. */
  agent?: AgentOfCall;
}

/** `--family` names no family of this organization (and application): the caller's mistake. */
export class UnknownKeyFamily extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownKeyFamily';
  }
}

/** A key name that cannot be one (blank, too long, control characters): the caller's mistake. */
export class InvalidKeyName extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidKeyName';
  }
}

export interface CreateKeyInput {
  orgId: string;
  /** Default: the family's name for a rotation, else `Key <display prefix>` (keyNames.ts). */
  name?: string;
  workspaceId: string;
  applicationId?: string;
  familyId?: string;
  /** Set by a rotation: the keys the new one succeeds, oldest first. */
  predecessorKeyIds?: string[];
  scopes: string[];
  environment?: KeyEnvironment;
  audience: string;
  expiresAt?: Date | null;
  /** Who makes it, as the audit log names actors: `user:<id>` from the console, `operator` from the CLI. */
  createdBy?: string | null;
}

export async function createApiKey(
  stores: KeysStores & TenancyStores,
  input: CreateKeyInput,
): Promise<{ key: string; key_id: string; family_id: string; name: string }> {
  const given = input.name === undefined ? undefined : checkKeyName(input.name);
  if (given && !given.ok) throw new InvalidKeyName(given.message);
  await requireOrganization(stores, input.orgId);
  const unknown = input.scopes.filter((s) => !isPermission(s));
  if (unknown.length) throw new Error(`unknown scopes: ${unknown.join(', ')}`);
  const ws = await stores.tenancy.findWorkspaceOfOrg(input.orgId, input.workspaceId);
  if (!ws) throw new Error(`workspace ${input.workspaceId} does not belong to ${input.orgId}`);
  // A rotation joins a family that already exists in this organization (and application): a
  // made-up family id would otherwise start a family whose budget and caps nobody set.
  const family = input.familyId ? await stores.keys.newestKeyOfFamily(input.orgId, input.familyId) : null;
  if (input.familyId && !family) {
    throw new UnknownKeyFamily(`key family ${input.familyId} does not exist in organization ${input.orgId}; omit --family to start a new family`);
  }
  if (family && input.applicationId && family.applicationId !== input.applicationId) {
    throw new UnknownKeyFamily(`key family ${input.familyId} belongs to application ${family.applicationId}, not ${input.applicationId}`);
  }
  let applicationId = input.applicationId ?? family?.applicationId;
  if (applicationId) {
    if (!(await stores.tenancy.applicationExistsInOrg(input.orgId, applicationId))) {
      throw new Error(`application ${applicationId} does not belong to ${input.orgId}`);
    }
  } else {
    const app = await stores.tenancy.oldestApplicationOfOrg(input.orgId);
    if (!app) throw new Error(`organization ${input.orgId} has no application; pass --application`);
    applicationId = app;
  }
  const familyId = input.familyId ?? newId('kf');
  const key = generateApiKey(input.environment ?? 'live');
  const keyId = newId('key');
  const name = given?.ok ? given.name : defaultKeyName(displayPrefix(key), family?.name);
  await stores.keys.insertKey({
    _id: keyId,
    name,
    hash: sha256Hex(key),
    displayPrefix: displayPrefix(key),
    environment: input.environment ?? 'live',
    audience: input.audience,
    orgId: input.orgId,
    workspaceId: input.workspaceId,
    applicationId,
    familyId,
    predecessorKeyIds: input.predecessorKeyIds ?? [],
    scopes: [...new Set(input.scopes)],
    expiresAt: input.expiresAt ?? null,
    createdBy: input.createdBy ?? null,
  });
  return { key, key_id: keyId, family_id: familyId, name };
}

/** A key as the operator (and the organization's admins) read it: never its hash or plaintext. */
export interface KeyView {
  key_id: string;
  name: string;
  display_prefix: string;
  family_id: string;
  workspace_id: string;
  application_id: string;
  scopes: string[];
  status: 'active' | 'expired' | 'revoked';
  /** `user:<id>` or `operator`; null when not known. */
  created_by: string | null;
  created_at: string | null;
  /** Accurate to the minute (keyUse.ts); null when the key was never used. */
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

/** Whether a key still works at `now`: a revocation or expiry that has come ends it. */
export function keyStatus(d: Pick<ListedKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): KeyView['status'] {
  return d.revokedAt && d.revokedAt <= now ? 'revoked' : d.expiresAt && d.expiresAt <= now ? 'expired' : 'active';
}

function keyView(d: ListedKeyRecord, now: Date): KeyView {
  return {
    key_id: d._id,
    name: d.name ?? defaultKeyName(d.displayPrefix, null),
    display_prefix: d.displayPrefix,
    family_id: d.familyId,
    workspace_id: d.workspaceId,
    application_id: d.applicationId,
    scopes: d.scopes,
    status: keyStatus(d, now),
    created_by: d.createdBy ?? null,
    created_at: d.createdAt?.toISOString() ?? null,
    last_used_at: d.lastUsedAt?.toISOString() ?? null,
    expires_at: d.expiresAt?.toISOString() ?? null,
    revoked_at: d.revokedAt?.toISOString() ?? null,
  };
}

/** The organization's keys, oldest first, revoked and expired ones included. */
export async function listApiKeys(stores: KeysStores & TenancyStores, orgId: string, now: Date): Promise<{ org_id: string; keys: KeyView[] }> {
  await requireOrganization(stores, orgId);
  const docs = await stores.keys.keysOfOrg(orgId);
  return { org_id: orgId, keys: docs.map((d) => keyView(d, now)) };
}

/** One page of the organization's keys, newest first; `more` when a further page exists. */
export async function pageOfApiKeys(stores: KeysStores, orgId: string, page: number, perPage: number, now: Date): Promise<{ keys: KeyView[]; more: boolean }> {
  const docs = await stores.keys.pageOfKeysOfOrg(orgId, Math.max(0, page - 1) * perPage, perPage + 1);
  return { keys: docs.slice(0, perPage).map((d) => keyView(d, now)), more: docs.length > perPage };
}

/** A key of this organization, or null: another organization's key reads as absent. */
export async function findOrgKey(stores: KeysStores, orgId: string, keyId: string, now: Date): Promise<KeyView | null> {
  if (typeof keyId !== 'string' || keyId.length > 100) return null;
  const doc = await stores.keys.findListedKeyOfOrg(orgId, keyId);
  return doc ? keyView(doc, now) : null;
}

export interface RotationResult {
  key: string;
  key_id: string;
  family_id: string;
  name: string;
  replaced_key_id: string;
  /** When the replaced key stops working. */
  replaced_key_expires_at: string;
}

/** What the audit log keeps of a rotation, whoever made it (console or operator CLI): never the key itself. */
export function rotationAuditValues(rotated: RotationResult): Record<string, unknown> {
  return {
    key_id: rotated.key_id,
    family_id: rotated.family_id,
    name: rotated.name,
    status: 'active',
    replaced_key_id: rotated.replaced_key_id,
    replaced_key_expires_at: rotated.replaced_key_expires_at,
  };
}

/**
 * Rotates a key (SPEC 5.1.5): a new key of the same family, workspace, application, scopes and
 * name, issued alongside the old one, which stops working `oldKeyEndsInMs` from now (0: at once,
 * as a revocation, which waits out the read caches so the next request with it fails
 * everywhere). The old key never lives longer than it already would. The new key has no expiry
 * and succeeds the old one: it records the old key and the old key's predecessors, so every
 * limit set on any of them holds it too (core/limits/scopeChain.ts).
 */
export async function rotateApiKey(
  stores: KeysStores & TenancyStores,
  settings: Pick<Config, 'readCacheMs' | 'apiAudience'>,
  input: { orgId: string; keyId: string; oldKeyEndsInMs: number; createdBy?: string | null },
  now: Date,
): Promise<RotationResult> {
  const old = await stores.keys.findKeyOfOrg(input.orgId, input.keyId);
  if (!old) throw new Error(`key ${input.keyId} does not exist in organization ${input.orgId}`);
  if ((old.revokedAt && old.revokedAt <= now) || (old.expiresAt && old.expiresAt <= now)) throw new Error(`key ${input.keyId} is no longer active`);
  const created = await createApiKey(stores, {
    orgId: old.orgId,
    workspaceId: old.workspaceId,
    applicationId: old.applicationId,
    familyId: old.familyId,
    predecessorKeyIds: [...(old.predecessorKeyIds ?? []), old._id],
    scopes: old.scopes,
    audience: old.audience,
    environment: old.environment,
    createdBy: input.createdBy,
  });
  let endsAt = new Date(now.getTime() + Math.max(0, input.oldKeyEndsInMs));
  if (input.oldKeyEndsInMs <= 0) {
    const revoked = await revokeApiKey(stores, settings, old._id, now);
    endsAt = new Date(revoked.revoked_at);
  } else {
    if (old.expiresAt && old.expiresAt < endsAt) endsAt = old.expiresAt;
    await stores.keys.setKeyExpiry(old._id, endsAt);
  }
  return { ...created, replaced_key_id: old._id, replaced_key_expires_at: endsAt.toISOString() };
}

/**
 * Revokes a key. Returns only once no replica can still hold the key in its read cache, so the
 * very next request with it fails everywhere (DECISIONS: no cache may outlive a revocation).
 */
export async function revokeApiKey(
  stores: KeysStores,
  settings: Pick<Config, 'readCacheMs'>,
  keyId: string,
  now: Date,
): Promise<{ key_id: string; revoked_at: string }> {
  await stores.keys.markKeyRevoked(keyId, now);
  const doc = await stores.keys.findKey(keyId);
  if (!doc) throw new Error(`key ${keyId} does not exist`);
  await waitUntilReadCachesExpire(settings.readCacheMs);
  return { key_id: keyId, revoked_at: (doc.revokedAt ?? now).toISOString() };
}

/**
 * One app's reads of keys by hash: each key read at most once per READ_CACHE_MS (see
 * readCache.ts), and every tenant's refreshes of a few milliseconds sent to the store as one
 * find. The app's composition root builds one (core/deps.ts).
 */
export class KeyReads {
  constructor(private readonly keys: KeysStore) {}

  private readonly reads = new ReadCache<ApiKeyRecord | null>();
  private readonly lookups = new GatheredReads<ApiKeyRecord>(
    async (hashes) => {
      const docs = await this.keys.keysByHashes(hashes);
      return new Map(docs.map((d) => [d.hash, d]));
    },
    undefined,
    MISS_SPACING_MS,
  );

  byHash(hash: string, readCacheMs: number): Promise<ApiKeyRecord | null> {
    return this.reads.get(hash, readCacheMs, (gatherMs) => this.lookups.read(hash, gatherMs));
  }

  /** Keys read elsewhere by a find that started at `startedAt` (performance.now()): held as if read here (ReadCache.offer). */
  offer(keys: readonly ApiKeyRecord[], readCacheMs: number, startedAt: number): void {
    for (const key of keys) this.reads.offer(key.hash, key, readCacheMs, startedAt);
  }
}

export type KeyVerdict =
  { ok: true; principal: KeyPrincipal } | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired' | 'wrong_environment' | 'wrong_audience' };

/**
 * Verifies a presented key. Expiry is judged on every request; the stored key is read through
 * the replica's short read cache, which a revocation outwaits (see `revokeApiKey`).
 */
export async function verifyApiKey(presented: string, settings: Pick<Config, 'apiAudience' | 'readCacheMs'>, reads: KeyReads, now: Date): Promise<KeyVerdict> {
  const format = parseApiKey(presented);
  if (!format) return { ok: false, reason: 'malformed' };
  const doc = await reads.byHash(sha256Hex(presented), settings.readCacheMs);
  if (!doc) return { ok: false, reason: 'unknown' };
  if (doc.revokedAt && doc.revokedAt <= now) return { ok: false, reason: 'revoked' };
  if (doc.expiresAt && doc.expiresAt <= now) return { ok: false, reason: 'expired' };
  if (format.environment !== 'live' || doc.environment !== 'live') return { ok: false, reason: 'wrong_environment' };
  if (doc.audience !== settings.apiAudience) return { ok: false, reason: 'wrong_audience' };
  return {
    ok: true,
    principal: {
      keyId: doc._id,
      orgId: doc.orgId,
      workspaceId: doc.workspaceId,
      applicationId: doc.applicationId,
      familyId: doc.familyId,
      predecessorKeyIds: doc.predecessorKeyIds ?? [],
      audience: doc.audience,
      scopes: doc.scopes as Permission[],
    },
  };
}
