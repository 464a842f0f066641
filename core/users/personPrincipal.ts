import type { KeyPrincipal } from '../keys/apiKeys';
import type { Permission } from '../keys/permissions';
import type { UserRecord } from './users';

/** A signed-in person as the operation executor sees them: their organization and permissions, acting as `user:<id>`. */
export type PersonPrincipal = KeyPrincipal & { subject: { type: 'user'; id: string } };

/**
 * The principal of a person, for the console and for their tool-server tokens alike. A person
 * has no key: their own id stands in for the key and its family, so limits and records have the
 * same home as a key's.
 */
export function personPrincipal(user: Pick<UserRecord, '_id' | 'orgId' | 'workspaceId' | 'applicationId' | 'permissions'>, audience: string): PersonPrincipal {
  return {
    keyId: user._id,
    familyId: user._id,
    orgId: user.orgId,
    workspaceId: user.workspaceId,
    applicationId: user.applicationId,
    audience,
    scopes: user.permissions as Permission[],
    subject: { type: 'user', id: user._id },
  };
}
