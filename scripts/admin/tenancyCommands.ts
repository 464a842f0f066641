import {
  InvalidKeyName,
  UnknownKeyFamily,
  createApiKey,
  findOrgKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  rotationAuditValues,
} from '../../core/keys/apiKeys';
import { OPERATOR } from '../../core/audit/auditActions';
import { createApplication, createOrganization, createWorkspace } from '../../core/tenancy/provisioning';
import { securityPolicyOf, setSecondFactorRequired, setSecondFactorRequiredEverywhere } from '../../core/tenancy/securityPolicy';
import { UsageError, intFlag, optionalFlag, permissionsFlag, requireFlag, type AdminCommand } from './command';
import { recordOperatorChange } from './operatorAudit';

export const tenancyCommands: Record<string, AdminCommand> = {
  'org create': {
    usage: 'org create --name N [--credits C]',
    run: (f, { stores }) => createOrganization(stores, requireFlag(f, 'name'), intFlag(f, 'credits') ?? 0),
  },
  'org require-2fa': {
    usage: 'org require-2fa (--org O | --all) --required on|off (everyone without a second factor is taken to enrol on their next page)',
    run: async (f, { stores, now }) => {
      const required = requireFlag(f, 'required');
      if (required !== 'on' && required !== 'off') throw new UsageError('--required must be on or off');
      const orgId = optionalFlag(f, 'org');
      if ((orgId === undefined) === (f.all !== true)) throw new UsageError('name one organization with --org O, or every organization with --all');
      if (orgId === undefined)
        return { organizations: await setSecondFactorRequiredEverywhere(stores, required === 'on'), require_second_factor: required === 'on' };
      const before = await securityPolicyOf(stores, orgId);
      const after = await setSecondFactorRequired(stores, orgId, required === 'on').catch((err: unknown) => {
        throw new UsageError(`organization ${orgId} does not exist`, { cause: err });
      });
      await recordOperatorChange({ stores, now }, { orgId, action: 'security_policy.updated', target: orgId, before: { ...before }, after: { ...after } });
      return { org_id: orgId, ...after };
    },
  },
  'workspace create': {
    usage: 'workspace create --org O [--name N]',
    run: (f, { stores }) => createWorkspace(stores, requireFlag(f, 'org'), optionalFlag(f, 'name')),
  },
  'application create': {
    usage: 'application create --org O [--name N]',
    run: (f, { stores }) => createApplication(stores, requireFlag(f, 'org'), optionalFlag(f, 'name')),
  },
  'key create': {
    usage: 'key create --org O --workspace W [--application A] --scopes s1,s2|all [--family F] [--name N] [--environment live] [--audience X]',
    run: async (f, { config, stores, now }) => {
      const env = optionalFlag(f, 'environment') ?? 'live';
      // The data model knows test keys, but this deployment refuses them on every request (401).
      if (env === 'test')
        throw new UsageError(
          '--environment test: this deployment accepts live keys only (a test key would be refused with 401 on every request); leave --environment out',
        );
      if (env !== 'live') throw new UsageError('--environment must be live (the only environment this deployment accepts)');
      const family = optionalFlag(f, 'family');
      if (family !== undefined && !/^kf_[0-9A-Za-z]+$/.test(family)) throw new UsageError('--family must be an existing key family id (kf_…)');
      const orgId = requireFlag(f, 'org');
      const workspaceId = requireFlag(f, 'workspace');
      const scopes = permissionsFlag(f, 'scopes');
      const created = await createApiKey(stores, {
        orgId,
        name: optionalFlag(f, 'name'),
        workspaceId,
        applicationId: optionalFlag(f, 'application'),
        familyId: family,
        scopes,
        environment: env,
        audience: optionalFlag(f, 'audience') ?? config.apiAudience,
        createdBy: OPERATOR,
      }).catch((err: unknown) => {
        throw err instanceof UnknownKeyFamily || err instanceof InvalidKeyName ? new UsageError(err.message) : err;
      });
      await recordOperatorChange(
        { stores, now },
        {
          orgId,
          action: 'key.created',
          target: created.key_id,
          after: { key_id: created.key_id, family_id: created.family_id, workspace_id: workspaceId, scopes, environment: env, status: 'active' },
        },
      );
      return created;
    },
  },
  'key rotate': {
    usage:
      'key rotate --key-id K [--old-key-seconds S] (a new key of the same family beside the old one, which works S more seconds; default 86400, 0 = at once)',
    run: async (f, { config, stores, now }) => {
      const keyId = requireFlag(f, 'key-id');
      const seconds = intFlag(f, 'old-key-seconds', { min: 0 }) ?? 86_400;
      const key = await stores.keys.findKey(keyId);
      const current = key ? await findOrgKey(stores, key.orgId, keyId, new Date(now())) : null;
      if (!key || !current) throw new UsageError(`key ${keyId} does not exist`);
      if (current.status !== 'active') throw new UsageError(`key ${keyId} is ${current.status}: only an active key can be rotated`);
      const rotated = await rotateApiKey(stores, config, { orgId: key.orgId, keyId, oldKeyEndsInMs: seconds * 1000, createdBy: OPERATOR }, new Date(now()));
      await recordOperatorChange(
        { stores, now },
        {
          orgId: key.orgId,
          action: 'key.rotated',
          target: keyId,
          after: rotationAuditValues(rotated),
        },
      );
      return rotated;
    },
  },
  'key list': {
    usage: 'key list --org O (every key of the organization: name, prefix, scopes, status, last use; never a secret)',
    run: (f, { stores, now }) => listApiKeys(stores, requireFlag(f, 'org'), new Date(now())),
  },
  'key revoke': {
    usage: 'key revoke --key-id K',
    run: async (f, { config, stores, now }) => {
      const keyId = requireFlag(f, 'key-id');
      const key = await stores.keys.findKey(keyId);
      const revoked = await revokeApiKey(stores, config, keyId, new Date(now()));
      if (key && !key.revokedAt) {
        await recordOperatorChange(
          { stores, now },
          {
            orgId: key.orgId,
            action: 'key.revoked',
            target: keyId,
            before: { status: 'active' },
            after: { status: 'revoked', revoked_at: revoked.revoked_at },
          },
        );
      }
      return revoked;
    },
  },
};
