import { z } from 'zod';
import { noticeSecondFactorChange } from '../../../core/accounts/securityNotices';
import { notFound, validationFailed } from '../../../core/problems';
import { addPasskey, findPasskeyOf, removePasskey, renamePasskey } from '../../../core/users/passkeyCeremonies';
import { relyingPartyOf } from '../../../core/users/passkeys';
import type { PasskeyRecord } from '../../../core/users/passkeysStore';
import type { UserStores } from '../../../core/users/store';
import { findActiveUser, type UserRecord } from '../../../core/users/users';
import type { RouteInput } from '../../routeSpec';
import { defineConsoleOperation } from '../consoleOperation';
import { CONSOLE_PATHS } from '../consolePaths';

/**
 * The console's passkey writes (DECISIONS.md "Accounts, settings …", Security): a person adds a
 * passkey to their own account, renames one or removes one (removing needs sudo mode,
 * sudoOperations.ts). Each is the person's own change, open to every role, and audited
 * (`passkey.added`, `passkey.renamed`, `passkey.removed`: the passkey's id and name, never its
 * credential); adding and removing are told to the person by mail.
 */
export const PASSKEYS_PATH = `${CONSOLE_PATHS.security}/passkeys`;
export const passkeyRemovePath = (passkeyId: string) => `${PASSKEYS_PATH}/${encodeURIComponent(passkeyId)}/remove`;
export const passkeyRenamePath = (passkeyId: string) => `${PASSKEYS_PATH}/${encodeURIComponent(passkeyId)}/rename`;

const addBody = z.object({ name: z.string().max(200).optional().default(''), credential: z.string().min(1).max(6000) }).strict();
const renameBody = z.object({ passkey_id: z.string().regex(/^pk_[0-9A-Za-z]{8,64}$/, 'not a passkey id'), name: z.string().max(200) }).strict();
const removeBody = z.object({ passkey_id: z.string().regex(/^pk_[0-9A-Za-z]{8,64}$/, 'not a passkey id') }).strict();

async function visitorOf(stores: UserStores, principal: RouteInput<unknown, unknown, unknown>['principal']): Promise<UserRecord> {
  const user = await findActiveUser(stores, principal.keyId);
  if (!user) throw notFound('person');
  return user;
}

function passkeyFields(passkey: PasskeyRecord, user: Pick<UserRecord, 'email'>): Record<string, unknown> {
  return { passkey_id: passkey._id, user_id: passkey.userId, email: user.email, name: passkey.name };
}

const addOperation = defineConsoleOperation({
  operation: 'console.passkeys.add',
  path: PASSKEYS_PATH,
  summary: 'Add a passkey',
  body: addBody,
  ownChange: true,
  handler: async ({ principal, body, deps }) => {
    const user = await visitorOf(deps.stores, principal);
    const now = new Date(deps.now());
    const added = await addPasskey(deps.stores, relyingPartyOf(deps.config.authUrl), user, body.credential, body.name, now);
    if (!added.ok) throw validationFailed([{ field: 'credential', message: added.message }], added.message);
    await noticeSecondFactorChange(
      deps.stores,
      deps.config,
      deps.purposeKeys,
      user,
      'factor_added',
      now,
      `The passkey "${added.passkey.name}" was added to your account`,
    );
    return { status: 201, body: passkeyFields(added.passkey, user) };
  },
  audit: {
    change: ({ principal }, result) => {
      const after = result.body as Record<string, unknown>;
      return { action: 'passkey.added', target: String(after.passkey_id ?? principal.keyId), before: null, after };
    },
  },
});

const renameOperation = defineConsoleOperation({
  operation: 'console.passkeys.rename',
  path: `${PASSKEYS_PATH}/:passkey_id/rename`,
  summary: 'Rename a passkey',
  body: renameBody,
  ownChange: true,
  handler: async ({ principal, body, deps }) => {
    const user = await visitorOf(deps.stores, principal);
    const renamed = await renamePasskey(deps.stores, user._id, body.passkey_id, body.name);
    if (!renamed.ok) {
      if ('absent' in renamed) throw notFound('passkey');
      throw validationFailed([{ field: 'name', message: renamed.message }], renamed.message);
    }
    return { status: 200, body: passkeyFields(renamed.passkey, user) };
  },
  audit: {
    before: async ({ principal, body, deps }) => {
      const passkey = await findPasskeyOf(deps.stores, principal.keyId, body.passkey_id);
      return passkey ? { passkey_id: passkey._id, user_id: passkey.userId, name: passkey.name } : null;
    },
    change: ({ body }, result, before) => ({ action: 'passkey.renamed', target: body.passkey_id, before, after: result.body as Record<string, unknown> }),
  },
});

const removeOperation = defineConsoleOperation({
  operation: 'console.passkeys.remove',
  path: `${PASSKEYS_PATH}/:passkey_id/remove`,
  summary: 'Remove a passkey',
  body: removeBody,
  ownChange: true,
  handler: async ({ principal, body, deps }) => {
    const user = await visitorOf(deps.stores, principal);
    // Another person's passkey reads as absent, whatever the form names.
    const removed = await removePasskey(deps.stores, user._id, body.passkey_id);
    if (!removed) throw notFound('passkey');
    const now = new Date(deps.now());
    await noticeSecondFactorChange(
      deps.stores,
      deps.config,
      deps.purposeKeys,
      user,
      'factor_removed',
      now,
      `The passkey "${removed.name}" was removed from your account`,
    );
    return { status: 200, body: passkeyFields(removed, user) };
  },
  audit: {
    before: async ({ principal, body, deps }) => {
      const passkey = await findPasskeyOf(deps.stores, principal.keyId, body.passkey_id);
      return passkey ? { passkey_id: passkey._id, user_id: passkey.userId, name: passkey.name } : null;
    },
    change: ({ body }, result, before) => ({ action: 'passkey.removed', target: body.passkey_id, before, after: null }),
  },
});

export const passkeyOperations = [addOperation, renameOperation, removeOperation];
