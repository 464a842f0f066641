import { InvalidKeyName, UnknownKeyFamily, createApiKey, listApiKeys, revokeApiKey } from '../../core/keys/apiKeys';
import { createApplication, createOrganization, createWorkspace } from '../../core/tenancy/provisioning';
import { UsageError, intFlag, optionalFlag, requireFlag, type AdminCommand } from './command';

export const tenancyCommands: Record<string, AdminCommand> = {
  'org create': {
    usage: 'org create --name N [--credits C]',
    run: (f) => createOrganization(requireFlag(f, 'name'), intFlag(f, 'credits') ?? 0),
  },
  'workspace create': {
    usage: 'workspace create --org O [--name N]',
    run: (f) => createWorkspace(requireFlag(f, 'org'), optionalFlag(f, 'name')),
  },
  'application create': {
    usage: 'application create --org O [--name N]',
    run: (f) => createApplication(requireFlag(f, 'org'), optionalFlag(f, 'name')),
  },
  'key create': {
    usage: 'key create --org O --workspace W [--application A] --scopes s1,s2 [--family F] [--name N] [--environment live] [--audience X]',
    run: (f, config) => {
      const env = optionalFlag(f, 'environment') ?? 'live';
      // The data model knows test keys, but this deployment refuses them on every request (401).
      if (env === 'test')
        throw new UsageError(
          '--environment test: this deployment accepts live keys only (a test key would be refused with 401 on every request); leave --environment out',
        );
      if (env !== 'live') throw new UsageError('--environment must be live (the only environment this deployment accepts)');
      const family = optionalFlag(f, 'family');
      if (family !== undefined && !/^kf_[0-9A-Za-z]+$/.test(family)) throw new UsageError('--family must be an existing key family id (kf_…)');
      return createApiKey({
        orgId: requireFlag(f, 'org'),
        name: optionalFlag(f, 'name'),
        workspaceId: requireFlag(f, 'workspace'),
        applicationId: optionalFlag(f, 'application'),
        familyId: family,
        scopes: requireFlag(f, 'scopes')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        environment: env,
        audience: optionalFlag(f, 'audience') ?? config.apiAudience,
      }).catch((err: unknown) => {
        throw err instanceof UnknownKeyFamily || err instanceof InvalidKeyName ? new UsageError(err.message) : err;
      });
    },
  },
  'key list': {
    usage: 'key list --org O (every key of the organization: name, prefix, scopes, status, last use; never a secret)',
    run: (f) => listApiKeys(requireFlag(f, 'org')),
  },
  'key revoke': {
    usage: 'key revoke --key-id K',
    run: (f, config) => revokeApiKey(config, requireFlag(f, 'key-id')),
  },
};
