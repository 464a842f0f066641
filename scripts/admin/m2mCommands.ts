import { createClient, listClients, revokeClient, rotateClientSecret } from '../../core/oauth/clients';
import { rotateSigningKey } from '../../core/oauth/signingKeys';
import type { TenancyStores } from '../../core/tenancy/store';
import { UsageError, intFlag, optionalFlag, requireFlag, type AdminCommand, type Flags } from './command';

/**
 * The workspace an M2M client acts in, which decides where its jobs' `job.completed` events go
 * (the workspace's webhook endpoint): --workspace when given; else the organization's only
 * workspace; an organization with several must name one (a usage error lists them). Only an
 * organization without any workspace gets a new one.
 */
async function clientWorkspace(stores: TenancyStores, f: Flags, orgId: string): Promise<{ workspaceId?: string; chosen: string }> {
  const given = optionalFlag(f, 'workspace');
  if (given) return { workspaceId: given, chosen: 'given with --workspace' };
  const all = await stores.tenancy.workspacesOfOrg(orgId, 'oldest_first', 6);
  if (all.length === 1) return { workspaceId: String(all[0]._id), chosen: "the organization's only workspace" };
  if (all.length > 1) {
    const shown = all.slice(0, 5).map((w) => String(w._id));
    throw new UsageError(
      `organization ${orgId} has ${all.length > 5 ? 'more than 5' : all.length} workspaces (${shown.join(', ')}${all.length > 5 ? ', …' : ''}): name one with --workspace`,
    );
  }
  return { chosen: 'created for this client (the organization had none)' };
}

/** Operator commands for tool-server M2M clients (SPEC 5.2, DECISIONS.md "Operator CLI"). */
export const m2mCommands: Record<string, AdminCommand> = {
  'm2m create': {
    usage: 'm2m create --org O [--workspace W] --rate-limit N(requests/minute) [--scopes s1,s2] [--name N]',
    run: async (f, { stores, now }) => {
      const orgId = requireFlag(f, 'org');
      const rateLimitPerMinute = intFlag(f, 'rate-limit', { required: true, min: 1 })!;
      const { workspaceId, chosen } = await clientWorkspace(stores, f, orgId);
      const created = await createClient(
        stores,
        {
          orgId,
          workspaceId,
          rateLimitPerMinute,
          permissions: optionalFlag(f, 'scopes')
            ?.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
          name: optionalFlag(f, 'name'),
        },
        new Date(now()),
      );
      return { ...created, workspace: `${created.workspace_id}: ${chosen}` };
    },
  },
  'm2m rotate': {
    usage: 'm2m rotate --client-id C [--grace-seconds S] (previous secret works S more seconds; default M2M_SECRET_ROTATION_GRACE_SECONDS, 0 = at once)',
    run: (f, { config, now, stores }) =>
      rotateClientSecret(stores, requireFlag(f, 'client-id'), intFlag(f, 'grace-seconds') ?? config.oauth.secretRotationGraceSeconds, new Date(now())),
  },
  'm2m revoke': {
    usage: 'm2m revoke --client-id C',
    run: (f, { now, stores }) => revokeClient(stores, requireFlag(f, 'client-id'), new Date(now())),
  },
  'm2m list': {
    usage: 'm2m list --org O',
    run: (f, { stores, now }) => listClients(stores, requireFlag(f, 'org'), new Date(now())),
  },
  'm2m signing-key rotate': {
    usage: 'm2m signing-key rotate (new access-token signing key; the old one verifies for one token lifetime more)',
    run: (_f, { now, stores, purposeKeys }) => rotateSigningKey(stores, purposeKeys, new Date(now())),
  },
};
