import { isRole, type Role } from '../../core/users/adminSeats';
import { disableUser, createUser, listUsers, reissueSetup, revokeUserGrants, setUserRole, userGrants } from '../../core/users/users';
import { optionalFlag, requireFlag, UsageError, type AdminCommand, type Flags } from './command';

function roleFlag(f: Flags, required: boolean): Role {
  const raw = required ? requireFlag(f, 'role') : (optionalFlag(f, 'role') ?? 'member');
  if (!isRole(raw)) throw new UsageError('--role must be admin or member');
  return raw;
}

/** Operator commands for people who sign in through the browser (DECISIONS.md "Interactive sign-in"). */
export const userCommands: Record<string, AdminCommand> = {
  'user create': {
    usage: 'user create --org O --workspace W --email E --permissions p1,p2 [--role admin|member]',
    run: (f, config) =>
      createUser(config, {
        orgId: requireFlag(f, 'org'),
        workspaceId: requireFlag(f, 'workspace'),
        email: requireFlag(f, 'email'),
        permissions: requireFlag(f, 'permissions')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        role: roleFlag(f, false),
      }),
  },
  'user role': {
    usage: 'user role --user-id U --role admin|member',
    run: (f) => setUserRole(requireFlag(f, 'user-id'), roleFlag(f, true)),
  },
  'user setup-link': {
    usage: 'user setup-link --user-id U',
    run: (f, config) => reissueSetup(config, requireFlag(f, 'user-id')),
  },
  'user list': {
    usage: 'user list --org O',
    run: (f) => listUsers(requireFlag(f, 'org')),
  },
  'user disable': {
    usage: 'user disable --user-id U',
    run: (f) => disableUser(requireFlag(f, 'user-id')),
  },
  'user grants': {
    usage: 'user grants --user-id U',
    run: (f) => userGrants(requireFlag(f, 'user-id')),
  },
  'user grants revoke': {
    usage: 'user grants revoke --user-id U [--client-id C]',
    run: (f) => revokeUserGrants(requireFlag(f, 'user-id'), optionalFlag(f, 'client-id')),
  },
};
