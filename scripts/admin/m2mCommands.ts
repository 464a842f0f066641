import { createClient, listClients, revokeClient, rotateClientSecret } from '../../core/oauth/clients';
import { rotateSigningKey } from '../../core/oauth/signingKeys';
import { intFlag, optionalFlag, requireFlag, type AdminCommand } from './command';

/** Operator commands for tool-server M2M clients (SPEC 5.2, DECISIONS.md "Operator CLI"). */
export const m2mCommands: Record<string, AdminCommand> = {
  'm2m create': {
    usage: 'm2m create --org O --rate-limit N(requests/minute) [--scopes s1,s2] [--name N]',
    run: (f) =>
      createClient({
        orgId: requireFlag(f, 'org'),
        rateLimitPerMinute: intFlag(f, 'rate-limit', { required: true, min: 1 })!,
        permissions: optionalFlag(f, 'scopes')
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        name: optionalFlag(f, 'name'),
      }),
  },
  'm2m rotate': {
    usage: 'm2m rotate --client-id C [--grace-seconds S] (previous secret works S more seconds; default M2M_SECRET_ROTATION_GRACE_SECONDS, 0 = at once)',
    run: (f, config) => rotateClientSecret(requireFlag(f, 'client-id'), intFlag(f, 'grace-seconds') ?? config.oauth.secretRotationGraceSeconds),
  },
  'm2m revoke': {
    usage: 'm2m revoke --client-id C',
    run: (f) => revokeClient(requireFlag(f, 'client-id')),
  },
  'm2m list': {
    usage: 'm2m list --org O',
    run: (f) => listClients(requireFlag(f, 'org')),
  },
  'm2m signing-key rotate': {
    usage: 'm2m signing-key rotate (new access-token signing key; the old one verifies for one token lifetime more)',
    run: (_f, config) => rotateSigningKey(config.secretsKey),
  },
};
