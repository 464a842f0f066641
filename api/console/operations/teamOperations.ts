import { z } from 'zod';
import { requireWithinOwn } from '../../../core/keys/handingOn';
import { notFound, Problem } from '../../../core/problems';
import { roleOf } from '../../../core/users/adminSeats';
import type { UserStores } from '../../../core/users/store';
import { setUserPermissions, setUserRole, type UserRecord } from '../../../core/users/users';
import { disableUser } from '../../../core/oauth/personAccess';
import { cancelInvitation, inviteByMail, resendInvitation, type InvitationView } from '../../../core/accounts/invitations';
import type { KeyPrincipal } from '../../../core/keys/apiKeys';
import { defineConsoleOperation } from '../consoleOperation';

/**
 * The console's team writes (DECISIONS.md "Organization console"): invite (by mail), resend or
 * cancel an invitation, change role and permissions, disable, by the same core/users functions the operator CLI calls, with the same
 * rules (the last active admin stays). Nobody hands on permissions they do not have themselves.
 */
const personParams = z.object({ user_id: z.string().min(1).max(100) });
const roleField = z.enum(['admin', 'member']);
const permissionsField = z.array(z.string().max(100)).min(1, 'choose at least one permission').max(50);

/** A person of this organization; another organization's reads as absent. */
async function orgPerson(stores: UserStores, orgId: string, userId: string): Promise<UserRecord> {
  const user = await stores.users.findUserOfOrg(orgId, userId);
  if (!user) throw notFound('person');
  return user;
}

/** The person acting, as the invitation mail names them. */
async function inviterOf(stores: UserStores, principal: KeyPrincipal): Promise<{ userId: string; email: string }> {
  const inviter = await stores.users.findUser(principal.keyId);
  return { userId: principal.keyId, email: inviter?.email ?? 'An admin' };
}

const invitationParams = z.object({ invitation_id: z.string().min(1).max(100) });

/** Every invitation change is audited with the invitation's view (no link, no token). */
function invitationAudit(action: 'user.invited' | 'user.invitation_resent' | 'user.invitation_cancelled') {
  return {
    change: (_input: unknown, result: { body?: unknown }) => {
      const invitation = result.body as InvitationView;
      return { action, target: invitation.invitation_id, after: { ...invitation } };
    },
  };
}

const invite = defineConsoleOperation({
  operation: 'console.team.invite',
  path: '/console/team/invite',
  summary: 'Invite a person',
  body: z
    .object({
      email: z
        .string()
        .trim()
        .max(320)
        .regex(/^[^\s@]{1,64}@[^\s@]{1,255}$/, 'enter an email address'),
      role: roleField,
      permissions: permissionsField,
    })
    .strict(),
  handler: async ({ principal, body, config, deps }) => {
    requireWithinOwn(principal.scopes, { kind: 'person_invited', permissions: body.permissions });
    // The same answer whether or not the address has an account anywhere (core/accounts/invitations.ts).
    const invitation = await inviteByMail(
      deps.stores,
      config,
      deps.purposeKeys,
      {
        orgId: principal.orgId,
        workspaceId: principal.workspaceId,
        email: body.email,
        role: body.role,
        permissions: body.permissions,
        inviter: await inviterOf(deps.stores, principal),
      },
      new Date(deps.now()),
    );
    return { status: 201, body: invitation };
  },
  audit: invitationAudit('user.invited'),
});

const resend = defineConsoleOperation({
  operation: 'console.team.resend_invitation',
  path: '/console/team/invitations/:invitation_id/resend',
  summary: 'Resend invitation',
  params: invitationParams,
  body: z.object({}).strict(),
  handler: async ({ principal, params, config, deps }) => ({
    status: 200,
    body: await resendInvitation(
      deps.stores,
      config,
      deps.purposeKeys,
      principal.orgId,
      params.invitation_id,
      await inviterOf(deps.stores, principal),
      new Date(deps.now()),
    ),
  }),
  audit: invitationAudit('user.invitation_resent'),
});

const cancel = defineConsoleOperation({
  operation: 'console.team.cancel_invitation',
  path: '/console/team/invitations/:invitation_id/cancel',
  summary: 'Cancel invitation',
  params: invitationParams,
  body: z.object({}).strict(),
  handler: async ({ principal, params, deps }) => ({
    status: 200,
    body: await cancelInvitation(deps.stores, principal.orgId, params.invitation_id, new Date(deps.now())),
  }),
  audit: invitationAudit('user.invitation_cancelled'),
});

const update = defineConsoleOperation({
  operation: 'console.team.update',
  path: '/console/team/:user_id',
  summary: 'Edit person',
  params: personParams,
  body: z.object({ role: roleField, permissions: permissionsField }).strict(),
  handler: async ({ principal, params, body, deps }) => {
    const person = await orgPerson(deps.stores, principal.orgId, params.user_id);
    requireWithinOwn(principal.scopes, { kind: 'person_changed', before: person.permissions, after: body.permissions });
    const role = await setUserRole(deps.stores, person._id, body.role);
    const permissions = await setUserPermissions(deps.stores, person._id, body.permissions);
    return { status: 200, body: { user_id: person._id, role: role.role, permissions: permissions.permissions } };
  },
  audit: {
    before: async ({ principal, params, deps }) => {
      const person = await deps.stores.users.findUserOfOrg(principal.orgId, params.user_id);
      return person ? { user_id: person._id, role: roleOf(person), permissions: person.permissions } : null;
    },
    change: (input, result, before) => ({ action: 'user.updated', target: input.params.user_id, before, after: result.body as Record<string, unknown> }),
  },
});

const disable = defineConsoleOperation({
  operation: 'console.team.disable',
  path: '/console/team/:user_id/disable',
  summary: 'Disable person',
  params: personParams,
  body: z.object({}).strict(),
  handler: async ({ principal, params, deps }) => {
    const person = await orgPerson(deps.stores, principal.orgId, params.user_id);
    if (person.disabledAt) throw new Problem('invalid_state_transition', 'This person is already disabled.');
    requireWithinOwn(principal.scopes, { kind: 'person_changed', before: person.permissions });
    return { status: 200, body: await disableUser(deps.stores, person._id, new Date(deps.now())) };
  },
  audit: {
    change: (input, result) => {
      const disabled = result.body as { disabled_at: string; revoked_chains: number };
      return {
        action: 'user.disabled',
        target: input.params.user_id,
        before: { status: 'active' },
        after: { user_id: input.params.user_id, status: 'disabled', disabled_at: disabled.disabled_at, revoked_chains: disabled.revoked_chains },
      };
    },
  },
});

export const teamOperations = [invite, resend, cancel, update, disable];
