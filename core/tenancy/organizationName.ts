import { notFound, validationFailed } from '../problems';
import type { TenancyStores } from './store';

/**
 * An organization's name: what heads every console page (DECISIONS.md "Accounts, settings…").
 * The operator gives it at `org create --name`; an admin changes it on Settings.
 */
export const ORGANIZATION_NAME_MAX_LENGTH = 100;

/** The name as stored: trimmed, inner runs of white space made one space; a problem naming the field otherwise. */
export function organizationName(value: string): string {
  const name = value.trim().replace(/\s+/g, ' ');
  if (!name) throw validationFailed([{ field: 'name', message: 'Give the organization a name.' }], 'Give the organization a name.');
  if (name.length > ORGANIZATION_NAME_MAX_LENGTH) {
    const message = `A name has at most ${ORGANIZATION_NAME_MAX_LENGTH} characters.`;
    throw validationFailed([{ field: 'name', message }], message);
  }
  return name;
}

export interface OrganizationRename {
  name_before: string;
  name: string;
}

export async function renameOrganization(stores: TenancyStores, orgId: string, value: string): Promise<OrganizationRename> {
  const name = organizationName(value);
  const org = await stores.tenancy.findOrganization(orgId);
  if (!org || !(await stores.tenancy.storeOrganizationName(orgId, name))) throw notFound('organization');
  return { name_before: org.name, name };
}
