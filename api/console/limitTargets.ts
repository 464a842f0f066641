import type { Stores } from '../../core/deps';
import { keyStatus } from '../../core/keys/apiKeys';
import { familiesOfKeys } from '../../core/keys/keyFamilies';
import { defaultKeyName } from '../../core/keys/keyNames';
import type { ScopeType } from '../../core/limits/limitTable';
import { applicationNamesOf } from './tenancyNames';

/**
 * What a cap or block of the Limits page can apply to, by name (DECISIONS.md: "Target" is a
 * select of names): the organization's applications, key families (named after their newest
 * key) and working keys. The tables use the same names for the targets they list, an id the
 * organization no longer holds (a revoked key's cap) showing as itself.
 */
export interface TargetGroup {
  type: Exclude<ScopeType, 'organization'>;
  label: string;
  options: Array<{ value: string; label: string }>;
}

export interface LimitTargets {
  groups: TargetGroup[];
  /** Each target's name, working or not, by id. */
  names: Map<string, string>;
}

/** Options whose labels repeat (two unnamed applications, two families of one name) carry their id too. */
function distinct(options: Array<{ value: string; label: string }>): Array<{ value: string; label: string }> {
  const seen = new Map<string, number>();
  for (const o of options) seen.set(o.label, (seen.get(o.label) ?? 0) + 1);
  return options.map((o) => (seen.get(o.label)! > 1 ? { value: o.value, label: `${o.label} (${o.value})` } : o));
}

/** Oldest first, as the Keys page lists them. */
const byAge = (a: { createdAt?: Date; _id: string }, b: { createdAt?: Date; _id: string }) =>
  (a.createdAt?.getTime() ?? 0) - (b.createdAt?.getTime() ?? 0) || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

export async function limitTargetsOf(stores: Stores, orgId: string, now: Date): Promise<LimitTargets> {
  // One read of the keys (names and dates only) names the keys and their families alike.
  const [applications, keyRecords] = await Promise.all([applicationNamesOf(stores, orgId), stores.keys.namedKeysOfOrg(orgId)]);
  const families = familiesOfKeys(keyRecords);
  const keys = [...keyRecords].sort(byAge).map((k) => ({
    key_id: k._id,
    name: k.name ?? defaultKeyName(k.displayPrefix, null),
    display_prefix: k.displayPrefix,
    status: keyStatus(k, now),
  }));
  // A key named by default already carries its prefix ("Key sk_live_ext_ab12…").
  const keyLabel = (k: { name: string; display_prefix: string }) => (k.name.includes(k.display_prefix) ? k.name : `${k.name} (${k.display_prefix}…)`);
  const names = new Map<string, string>([
    ...applications.map((a) => [a.id, a.name] as const),
    ...families.map((f) => [f.family_id, `${f.name} (key family)`] as const),
    ...keys.map((k) => [k.key_id, keyLabel(k)] as const),
  ]);
  return {
    groups: [
      { type: 'application', label: 'Applications', options: distinct(applications.map((a) => ({ value: a.id, label: a.name }))) },
      { type: 'key_family', label: 'Key families', options: distinct(families.map((f) => ({ value: f.family_id, label: f.name }))) },
      {
        type: 'key',
        label: 'Keys',
        options: distinct(keys.filter((k) => k.status === 'active').map((k) => ({ value: k.key_id, label: keyLabel(k) }))),
      },
    ],
    names,
  };
}
