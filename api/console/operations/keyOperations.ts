import { noticeApiKeyCreated } from '../../../core/accounts/securityNotices';
import { z } from 'zod';
import { createApiKey, findOrgKey, revokeApiKey, rotateApiKey, rotationAuditValues, type RotationResult } from '../../../core/keys/apiKeys';
import { KEY_NAME_MAX_LENGTH } from '../../../core/keys/keyNames';
import { expiryOf, oldKeyEndMs } from '../../../core/keys/keyLifetimes';
import { requireWithinOwn } from '../../../core/keys/handingOn';
import { notFound, Problem, validationFailed } from '../../../core/problems';
import type { KeysStores } from '../../../core/keys/store';
import { auditActorOf } from '../../operations/operationAudit';
import { defineConsoleOperation } from '../consoleOperation';

/**
 * The console's key writes (DECISIONS.md "Organization console"): create, rotate, revoke, by the
 * same core/keys functions the operator CLI calls. A key of another organization is not found.
 */
const keyParams = z.object({ key_id: z.string().min(1).max(100) });

/** A key that must still be active to be rotated or revoked; absent and foreign alike are 404. */
async function activeKey(stores: KeysStores, orgId: string, keyId: string, now: Date) {
  const key = await findOrgKey(stores, orgId, keyId, now);
  if (!key) throw notFound('key');
  if (key.status !== 'active') throw new Problem('invalid_state_transition', `This key is ${key.status}: only an active key can be rotated or revoked.`);
  return key;
}

export interface CreatedKey {
  key: string;
  key_id: string;
  family_id: string;
  name: string;
  workspace_id: string;
  application_id: string;
  scopes: string[];
  expires_at: string | null;
}

const createKey = defineConsoleOperation({
  operation: 'console.keys.create',
  path: '/console/keys/new',
  summary: 'Create an API key',
  body: z
    .object({
      name: z.string().trim().min(1, 'give the key a name').max(KEY_NAME_MAX_LENGTH),
      workspace: z.string().min(1).max(100),
      application: z.string().min(1, 'choose an application').max(100),
      scopes: z.array(z.string().max(100)).min(1, 'choose at least one permission').max(50),
      expires: z.enum(['never', '30d', '90d', '1y']),
    })
    .strict(),
  handler: async ({ principal, body, config, deps }) => {
    requireWithinOwn(principal.scopes, { kind: 'key_created', scopes: body.scopes });
    if (!(await deps.stores.tenancy.workspaceExistsInOrg(principal.orgId, body.workspace))) {
      throw validationFailed([{ field: 'workspace', message: 'choose a workspace of your organization' }]);
    }
    // The key goes where the admin chose, and is held to that application's limits.
    if (!(await deps.stores.tenancy.keyApplicationExistsInOrg(principal.orgId, body.application))) {
      throw validationFailed([{ field: 'application', message: 'choose an application of your organization' }]);
    }
    const expiresAt = expiryOf(body.expires, new Date(deps.now()));
    const created = await createApiKey(deps.stores, {
      orgId: principal.orgId,
      name: body.name,
      workspaceId: body.workspace,
      applicationId: body.application,
      scopes: body.scopes,
      audience: config.apiAudience,
      expiresAt,
      createdBy: auditActorOf(principal),
    });
    const result: CreatedKey = {
      ...created,
      workspace_id: body.workspace,
      application_id: body.application,
      scopes: [...new Set(body.scopes)],
      expires_at: expiresAt?.toISOString() ?? null,
    };
    const creator = await deps.stores.users.findUser(principal.keyId);
    await noticeApiKeyCreated(deps.stores, config, deps.purposeKeys, {
      orgId: principal.orgId,
      keyName: created.name,
      by: creator?.email ?? 'A person',
      at: new Date(deps.now()),
    });
    return { status: 201, body: result };
  },
  audit: {
    change: (_input, result) => {
      const created = result.body as CreatedKey;
      return {
        action: 'key.created',
        target: created.key_id,
        after: { ...created, key: undefined, status: 'active', environment: 'live' },
      };
    },
  },
});

const rotateKey = defineConsoleOperation({
  operation: 'console.keys.rotate',
  path: '/console/keys/:key_id/rotate',
  summary: 'Rotate API key',
  params: keyParams,
  body: z.object({ old_key_ends: z.enum(['now', '1h', '24h', '7d']) }).strict(),
  handler: async ({ principal, params, body, config, deps }) => {
    const now = new Date(deps.now());
    const key = await activeKey(deps.stores, principal.orgId, params.key_id, now);
    requireWithinOwn(principal.scopes, { kind: 'key_rotated', scopes: key.scopes });
    const rotated = await rotateApiKey(
      deps.stores,
      config,
      { orgId: principal.orgId, keyId: params.key_id, oldKeyEndsInMs: oldKeyEndMs(body.old_key_ends), createdBy: auditActorOf(principal) },
      now,
    );
    return { status: 201, body: rotated };
  },
  audit: {
    change: (_input, { body }) => ({
      action: 'key.rotated',
      target: (body as RotationResult).replaced_key_id,
      after: rotationAuditValues(body as RotationResult),
    }),
  },
});

const revokeKey = defineConsoleOperation({
  operation: 'console.keys.revoke',
  path: '/console/keys/:key_id/revoke',
  summary: 'Revoke API key',
  params: keyParams,
  body: z.object({}).strict(),
  handler: async ({ principal, params, config, deps }) => {
    const now = new Date(deps.now());
    await activeKey(deps.stores, principal.orgId, params.key_id, now);
    return { status: 200, body: await revokeApiKey(deps.stores, config, params.key_id, now) };
  },
  audit: {
    change: (input, result) => ({
      action: 'key.revoked',
      target: input.params.key_id,
      before: { status: 'active' },
      after: { status: 'revoked', revoked_at: (result.body as { revoked_at: string }).revoked_at },
    }),
  },
});

export const keyOperations = [createKey, rotateKey, revokeKey];
