import { OPERATOR } from '../../core/audit/auditActions';
import { isRole, type Role } from '../../core/users/adminSeats';
import { createUser, listUsers, reissueSetup, setUserRole } from '../../core/users/users';
import { disableUser, revokeUserGrants, userGrants } from '../../core/oauth/personAccess';
import { optionalFlag, permissionsFlag, requireFlag, UsageError, type AdminCommand, type Flags } from './command';
import { recordOperatorChange } from './operatorAudit';

function roleFlag(f: Flags, required: boolean): Role {
  const raw = required ? requireFlag(f, 'role') : (optionalFlag(f, 'role') ?? 'member');
  if (!isRole(raw)) throw new UsageError('--role must be admin or member');
  return raw;
}

/** Operator commands for people who sign in through the browser (DECISIONS.md "Interactive sign-in"). */
export const userCommands: Record<string, AdminCommand> = {
  'user create': {
    usage: 'user create --org O --workspace W --email E --permissions p1,p2|all [--role admin|member]',
    run: async (f, { config, stores, now }) => {
      const input = {
        orgId: requireFlag(f, 'org'),
        workspaceId: requireFlag(f, 'workspace'),
        email: requireFlag(f, 'email'),
        permissions: permissionsFlag(f, 'permissions'),
        role: roleFlag(f, false),
      };
      const created = await createUser(stores, config, input, new Date(now()));
      await recordOperatorChange(
        { stores, now },
        {
          orgId: input.orgId,
          action: 'user.invited',
          target: created.user_id,
          after: {
            user_id: created.user_id,
            email: created.email,
            workspace_id: input.workspaceId,
            role: created.role,
            permissions: [...new Set(input.permissions)],
          },
        },
      );
      return created;
    },
  },
  'user role': {
    usage: 'user role --user-id U --role admin|member',
    run: async (f, { stores, now }) => {
      const changed = await setUserRole(stores, requireFlag(f, 'user-id'), roleFlag(f, true));
      if (changed.role !== changed.role_before) {
        await recordOperatorChange(
          { stores, now },
          {
            orgId: changed.org_id,
            action: 'user.updated',
            target: changed.user_id,
            before: { role: changed.role_before },
            after: { role: changed.role },
          },
        );
      }
      return changed;
    },
  },
  'user setup-link': {
    usage: 'user setup-link --user-id U',
    run: (f, { config, now, stores }) => reissueSetup(stores, config, requireFlag(f, 'user-id'), new Date(now())),
  },
  'user list': {
    usage: 'user list --org O',
    run: (f, { stores }) => listUsers(stores, requireFlag(f, 'org')),
  },
  'user disable': {
    usage: 'user disable --user-id U',
    run: async (f, { stores, now }) => {
      const userId = requireFlag(f, 'user-id');
      const user = await stores.users.findUser(userId);
      const disabled = await disableUser(stores, userId, new Date(now()));
      if (user && !user.disabledAt) {
        await recordOperatorChange(
          { stores, now },
          {
            orgId: user.orgId,
            action: 'user.disabled',
            target: userId,
            before: { status: 'active' },
            after: { status: 'disabled', disabled_at: disabled.disabled_at, revoked_chains: disabled.revoked_chains },
          },
        );
      }
      return disabled;
    },
  },
  'user grants': {
    usage: 'user grants --user-id U',
    run: (f, { stores }) => userGrants(stores, requireFlag(f, 'user-id')),
  },
  'user grants revoke': {
    usage: 'user grants revoke --user-id U [--client-id C]',
    run: (f, deps) =>
      revokeUserGrants(deps.stores, requireFlag(f, 'user-id'), optionalFlag(f, 'client-id'), {
        actor: OPERATOR,
        clientAddress: null,
        at: new Date(deps.now()),
      }),
  },
};
