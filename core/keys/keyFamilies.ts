import { defaultKeyName } from './keyNames';
import type { FamilyKeyRecord, KeysStores } from './store';

/**
 * What people call a key family: the name of its newest key (a rotation keeps the family's
 * name, keyNames.ts). Ledger charges and budgets carry the family id; pages show this name.
 */
export interface KeyFamily {
  family_id: string;
  name: string;
}

type FamilyKey = FamilyKeyRecord;

function newestKeyPerFamily(keys: readonly FamilyKey[]): Map<string, FamilyKey> {
  const newest = new Map<string, FamilyKey>();
  for (const k of keys) {
    const seen = newest.get(k.familyId);
    if (!seen || (k.createdAt?.getTime() ?? 0) >= (seen.createdAt?.getTime() ?? 0)) newest.set(k.familyId, k);
  }
  return newest;
}

function newestPerFamily(keys: readonly FamilyKey[]): KeyFamily[] {
  return [...newestKeyPerFamily(keys).values()].map((k) => ({ family_id: k.familyId, name: k.name ?? defaultKeyName(k.displayPrefix, null) }));
}

/** A family's current key: the newest, which a rotation made to replace the others still working. */
export interface CurrentKey {
  key_id: string;
  name: string;
  display_prefix: string;
}

/** The current key of each of these families of the organization, in one read. */
export async function currentKeysOf(stores: KeysStores, orgId: string, familyIds: readonly string[]): Promise<Map<string, CurrentKey>> {
  const wanted = [...new Set(familyIds)];
  if (wanted.length === 0) return new Map();
  const newest = newestKeyPerFamily(await stores.keys.familyKeysOfOrg(orgId, wanted));
  return new Map(
    [...newest].map(([familyId, k]) => [familyId, { key_id: k._id, name: k.name ?? defaultKeyName(k.displayPrefix, null), display_prefix: k.displayPrefix }]),
  );
}

/** The names of these families of the organization, in one read; a family of another organization has none. */
export async function familyNames(stores: KeysStores, orgId: string, familyIds: readonly (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(familyIds.filter((id): id is string => typeof id === 'string'))];
  if (wanted.length === 0) return new Map();
  const keys = await stores.keys.familyKeysOfOrg(orgId, wanted);
  return new Map(newestPerFamily(keys).map((f) => [f.family_id, f.name]));
}

/** The families of these keys (every key of an organization) with their names, by name. */
export function familiesOfKeys(keys: readonly FamilyKey[]): KeyFamily[] {
  return newestPerFamily(keys).sort((a, b) => a.name.localeCompare(b.name) || a.family_id.localeCompare(b.family_id));
}

/** Every key family of the organization with its name, by name: what a "Key" filter offers. */
export async function keyFamiliesOf(stores: KeysStores, orgId: string): Promise<KeyFamily[]> {
  return familiesOfKeys(await stores.keys.familyKeysOfOrg(orgId));
}
