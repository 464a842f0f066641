import type { Config } from '../config';
import { sha256Hex } from '../crypto/hash';
import { newId, randomBase62 } from '../ids';
import type { Role } from './adminSeats';
import { insertInvitation, pendingInvitationsOfOrg, type InvitationRecord } from './store';
import { createUser, findUserByEmail, normalizeEmail, SETUP_TOKEN_PREFIX, SETUP_TTL_MS, setupUrl } from './users';

/**
 * Inviting a person to an organization (console "Invite a person"). The answer never tells
 * whether the address already has an account anywhere (DECISIONS.md "Team"): either way an
 * invitation is stored `pending` and answered with the same fields and a setup link of the same
 * form. A new address gets its account, which the link opens; an address already in use gets
 * no account (one per address across the service), its link opens nothing, and the mail step
 * is what tells its owner. Until mail exists, the invitation stays pending.
 */
export interface InvitationAnswer {
  invitation_id: string;
  email: string;
  role: Role;
  workspace_id: string;
  permissions: string[];
  setup_url: string;
  setup_expires_at: string;
}

export type InvitationView = Pick<InvitationRecord, '_id' | 'email' | 'role' | 'permissions' | 'createdAt' | 'userId'>;

/** The account made for a new address; null when the address is in use (also by a concurrent invitation). */
async function accountFor(
  settings: Pick<Config, 'authUrl'>,
  input: { orgId: string; workspaceId: string; email: string; permissions: string[]; role: Role },
  now: Date,
): Promise<{ userId: string; setupUrl: string; setupExpiresAt: Date } | null> {
  if (await findUserByEmail(input.email)) return null;
  try {
    const made = await createUser(settings, input, now);
    return { userId: made.user_id, setupUrl: made.setup_url, setupExpiresAt: new Date(made.setup_expires_at) };
  } catch (err) {
    if (await findUserByEmail(input.email)) return null;
    throw err;
  }
}

export async function invitePerson(
  settings: Pick<Config, 'authUrl'>,
  input: { orgId: string; workspaceId: string; email: string; permissions: string[]; role: Role; invitedBy: string },
  now = new Date(),
): Promise<InvitationAnswer> {
  const email = normalizeEmail(input.email);
  const permissions = [...new Set(input.permissions)];
  const account = await accountFor(settings, { ...input, email, permissions }, now);
  // An address in use gets a link of the same form that opens nothing: the answer looks the same.
  const link = account ?? {
    userId: null,
    setupUrl: setupUrl(settings.authUrl, SETUP_TOKEN_PREFIX + randomBase62(43)),
    setupExpiresAt: new Date(now.getTime() + SETUP_TTL_MS),
  };
  const invitation: InvitationRecord = {
    _id: newId('inv'),
    orgId: input.orgId,
    workspaceId: input.workspaceId,
    email,
    role: input.role,
    permissions,
    state: 'pending',
    userId: link.userId,
    invitedBy: input.invitedBy,
    setupTokenHash: sha256Hex(new URL(link.setupUrl).searchParams.get('token') ?? ''),
    setupExpiresAt: link.setupExpiresAt,
    createdAt: now,
    mailedAt: null,
  };
  await insertInvitation(invitation);
  return {
    invitation_id: invitation._id,
    email,
    role: input.role,
    workspace_id: input.workspaceId,
    permissions,
    setup_url: link.setupUrl,
    setup_expires_at: link.setupExpiresAt.toISOString(),
  };
}

/** The organization's pending invitations, newest first (the Team page lists at most `limit`). */
export async function pendingInvitations(orgId: string, limit: number): Promise<InvitationView[]> {
  return pendingInvitationsOfOrg(orgId, limit);
}
