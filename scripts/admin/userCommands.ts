import { disableUser, createUser, listUsers, reissueSetup, revokeUserGrants, userGrants } from '../../core/users/users';
import { optionalFlag, requireFlag, type AdminCommand } from './command';

/** Operator commands for people who sign in through the browser (DECISIONS.md "Interactive sign-in"). */
export const userCommands: Record<string, AdminCommand> = {
  'user create': {
    usage: 'user create --org O --workspace W --email E --permissions p1,p2',
    run: (f, config) =>
      createUser(config, {
        orgId: requireFlag(f, 'org'),
        workspaceId: requireFlag(f, 'workspace'),
        email: requireFlag(f, 'email'),
        permissions: requireFlag(f, 'permissions')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      }),
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
