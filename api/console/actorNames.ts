import { defaultKeyName } from '../../core/keys/keyNames';
import type { Stores } from '../../core/deps';

/**
 * Who an actor is, as a person reads it (DECISIONS.md "Accounts, settings…": people by email,
 * keys by name; the id stays as secondary text): `user:<id>` is the person's email, `key:<id>`
 * the key's name, `operator` the service operator; an M2M client, or an id the organization no
 * longer holds, is shown as its id. One read per kind for all the actors of a page.
 */
export interface ActorName {
  /** What to show first. */
  label: string;
  /** The actor as recorded (`user:<id>`, `key:<id>`, …), shown as secondary text; null for the operator. */
  id: string | null;
}

export const OPERATOR_NAME = 'The service operator';

function idsOf(actors: readonly string[], kind: 'user' | 'key'): string[] {
  const prefix = `${kind}:`;
  return [...new Set(actors.filter((a) => a.startsWith(prefix)).map((a) => a.slice(prefix.length)))];
}

export async function actorNames(stores: Stores, orgId: string, actors: ReadonlyArray<string | null | undefined>): Promise<Map<string, ActorName>> {
  const known = actors.filter((a): a is string => typeof a === 'string' && a.length > 0);
  const [people, keys] = await Promise.all([stores.users.emailsOfUsers(orgId, idsOf(known, 'user')), stores.keys.namesOfKeys(orgId, idsOf(known, 'key'))]);
  const labels = new Map<string, string>([
    ...people.map((p) => [`user:${p._id}`, p.email] as const),
    // A key's name alone: an unnamed key's default already says "Key", and the id beneath says what kind of actor it is.
    ...keys.map((k) => [`key:${k._id}`, k.name ?? defaultKeyName(k.displayPrefix, null)] as const),
  ]);
  const names = new Map<string, ActorName>();
  for (const actor of known) {
    if (actor === 'operator') names.set(actor, { label: OPERATOR_NAME, id: null });
    else names.set(actor, { label: labels.get(actor) ?? actor, id: labels.has(actor) ? actor : null });
  }
  return names;
}
