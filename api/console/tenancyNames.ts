import type { Stores } from '../../core/deps';

/**
 * What people call an organization's workspaces and applications (DECISIONS.md: names first,
 * ids secondary). `org create` makes the first of each without a name: that one is the
 * "Default workspace" / "Default application"; any other left unnamed says so, and its id
 * beside it tells it apart.
 */
export interface NamedPlace {
  id: string;
  name: string;
}

/** An organization has a handful of workspaces; more than this are not offered in a select. */
const MAX_PLACES = 200;

function named(docs: ReadonlyArray<{ _id: string; name?: string | null }>, kind: 'workspace' | 'application'): NamedPlace[] {
  return docs.map((d, i) => ({ id: d._id, name: d.name ?? (i === 0 ? `Default ${kind}` : `Unnamed ${kind}`) }));
}

/** The organization's workspaces, oldest first, by name. */
export async function workspaceNamesOf(stores: Stores, orgId: string): Promise<NamedPlace[]> {
  return named(await stores.tenancy.workspacesOfOrg(orgId, 'oldest_first', MAX_PLACES), 'workspace');
}

/** The organization's own applications (where its keys go), oldest first, by name. */
export async function applicationNamesOf(stores: Stores, orgId: string): Promise<NamedPlace[]> {
  return named(await stores.tenancy.keyApplicationsOfOrg(orgId), 'application');
}

/** A place as a select offers it: its name, then its id. */
export const choiceLabel = (place: NamedPlace): string => `${place.name} (${place.id})`;
