import type { Config } from '../config';
import type { PurposeKeys } from '../crypto/purposeKeys';
import { newId } from '../ids';
import { invitationExistingAccountMail, invitationMail } from '../mail/mailMessages';
import { queueMail } from '../mail/mailOutbox';
import type { MailStores } from '../mail/store';

/** The stores an invitation reads and writes. */
type InvitationStores = MailStores & TenancyStores;
import { notFound, Problem } from '../problems';
import type { TenancyStores } from '../tenancy/store';
import type { Role } from '../users/adminSeats';
import { LINK_LIFETIMES_MS } from '../users/oneTimeLinks';
import type { UserStores } from '../users/store';
import type { InvitationRecord } from '../users/store';
import { createUser, findUserByEmail, normalizeEmail, reissueSetup } from '../users/users';
import { disableUser } from '../oauth/personAccess';
import { SIGN_IN_PATH } from './accountPaths';
import type { OAuthStores } from '../oauth/store';

/**
 * Invitations by mail (DECISIONS.md "Accounts, settings …"): a new address gets a person of the
 * organization and a 7-day link to choose a password; an address that already has an account
 * (here or elsewhere) gets a mail saying it was invited, and nothing else changes. Both are
 * recorded as an invitation and answered alike, so the inviter learns nothing about the address.
 */
export interface InvitationView {
  invitation_id: string;
  email: string;
  role: Role;
  workspace_id: string;
  permissions: string[];
  status: 'pending' | 'accepted' | 'cancelled';
  expires_at: string;
}

export function invitationView(i: InvitationRecord): InvitationView {
  return {
    invitation_id: i._id,
    email: i.email,
    role: i.role,
    workspace_id: i.workspaceId,
    permissions: i.permissions,
    status: i.status,
    expires_at: i.expiresAt.toISOString(),
  };
}

type MailSettings = Pick<Config, 'authUrl'>;

async function organizationName(stores: TenancyStores, orgId: string): Promise<string> {
  return (await stores.tenancy.findOrganization(orgId))?.name ?? 'an organization';
}

/** Mails the invitation: a fresh link for the person made for it, else the note to the existing account. */
async function mailInvitation(
  stores: InvitationStores & UserStores,
  config: MailSettings,
  keys: PurposeKeys,
  invitation: InvitationRecord,
  inviter: string,
  now: Date,
): Promise<Date> {
  const organization = await organizationName(stores, invitation.orgId);
  if (!invitation.userId) {
    await queueMail(
      stores,
      keys,
      invitation.email,
      invitationExistingAccountMail({ organization, inviter, signInUrl: `${config.authUrl}${SIGN_IN_PATH}` }),
      now,
    );
    return new Date(now.getTime() + LINK_LIFETIMES_MS.invitation);
  }
  const link = await reissueSetup(stores, config, invitation.userId, now, 'invitation');
  const expiresAt = new Date(link.setup_expires_at);
  await queueMail(stores, keys, invitation.email, invitationMail({ organization, inviter, link: link.setup_url, expiresAt }), now);
  return expiresAt;
}

export async function inviteByMail(
  stores: InvitationStores & UserStores,
  config: MailSettings,
  keys: PurposeKeys,
  input: { orgId: string; workspaceId: string; email: string; role: Role; permissions: string[]; inviter: { userId: string; email: string } },
  now: Date,
): Promise<InvitationView> {
  const email = normalizeEmail(input.email);
  let userId: string | null = null;
  if (!(await findUserByEmail(stores, email))) {
    try {
      userId = (await createUser(stores, config, { ...input, email }, now, 'invitation')).user_id;
    } catch (err) {
      // Made by someone else meanwhile: an existing account now, answered the same way.
      if (!(await findUserByEmail(stores, email))) throw err;
    }
  }
  const invitation: InvitationRecord = {
    _id: newId('inv'),
    orgId: input.orgId,
    workspaceId: input.workspaceId,
    email,
    role: input.role,
    permissions: [...new Set(input.permissions)],
    userId,
    invitedBy: input.inviter.userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + LINK_LIFETIMES_MS.invitation),
    lastSentAt: now,
    status: 'pending',
  };
  await stores.users.insertInvitation(invitation);
  invitation.expiresAt = await mailInvitation(stores, config, keys, invitation, input.inviter.email, now);
  await stores.users.markInvitationSent(invitation._id, now, invitation.expiresAt);
  return invitationView(invitation);
}

async function pendingInvitation(stores: UserStores, orgId: string, invitationId: string): Promise<InvitationRecord> {
  const invitation = invitationId.length <= 100 ? await stores.users.findInvitationOfOrg(orgId, invitationId) : null;
  if (!invitation) throw notFound('invitation');
  if (invitation.status !== 'pending') throw new Problem('invalid_state_transition', `This invitation was ${invitation.status}.`);
  return invitation;
}

/** Mails the invitation again with a new link (the previous link stops working) and 7 more days. */
export async function resendInvitation(
  stores: InvitationStores & UserStores,
  config: MailSettings,
  keys: PurposeKeys,
  orgId: string,
  invitationId: string,
  inviter: { email: string },
  now: Date,
): Promise<InvitationView> {
  const invitation = await pendingInvitation(stores, orgId, invitationId);
  const expiresAt = await mailInvitation(stores, config, keys, invitation, inviter.email, now);
  await stores.users.markInvitationSent(invitation._id, now, expiresAt);
  return invitationView({ ...invitation, expiresAt, lastSentAt: now });
}

/** Cancels a pending invitation: its link stops working and the person made for it is removed, so the address can be invited again. */
export async function cancelInvitation(stores: OAuthStores & UserStores, orgId: string, invitationId: string, now: Date): Promise<InvitationView> {
  const invitation = await pendingInvitation(stores, orgId, invitationId);
  if (!(await stores.users.closeInvitation(invitation._id, 'cancelled')))
    throw new Problem('invalid_state_transition', 'This invitation is no longer pending.');
  if (invitation.userId) {
    const person = await stores.users.findUser(invitation.userId);
    if (person && !person.passwordHash) {
      // Disabling voids the link and gives back an admin seat; the person never signed in, so nothing else refers to them.
      await disableUser(stores, person._id, now);
      await stores.users.deleteUserWithoutPassword(person._id);
    }
  }
  return invitationView({ ...invitation, status: 'cancelled' });
}

/** The organization's pending invitations, oldest first, at most `limit` (the Team page's). */
export async function pendingInvitations(stores: UserStores, orgId: string, limit: number): Promise<InvitationRecord[]> {
  return stores.users.pendingInvitationsOfOrg(orgId, limit);
}
