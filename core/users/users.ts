import type { Config } from '../config';
import { sha256Hex } from '../crypto/hash';
import { newId } from '../ids';
import { isPermission } from '../keys/permissions';
import { claimOnce } from './attemptSlots';
import { isDuplicateKeyError } from '../store/connection';
import type { TenancyStores } from '../tenancy/store';
import { requireOrganization } from '../tenancy/provisioning';
import { addAdminSeat, ensureAdminCount, isRole, releaseAdminSeat, roleOf, type Role } from './adminSeats';
import type { UserRecord } from './store';
import { hashPassword, passwordProblem } from './passwords';
import { withinMailboxLimits } from '../mailboxLimits';
import { issueLink, LINK_LIFETIMES_MS, LINK_TOKEN_PREFIX, linkHashOf, type LinkPurpose } from './oneTimeLinks';
import type { UserStores } from './store';

/** Operator-created people (DECISIONS.md "Interactive sign-in"). */
export const SETUP_TOKEN_PREFIX = LINK_TOKEN_PREFIX;
export const SETUP_TTL_MS = LINK_LIFETIMES_MS.setup;
export const SETUP_PATH = '/api/oauth/setup';

export type { UserRecord } from './store';

/** One `@`, nothing blank, within a mailbox's limits. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function setupUrl(authUrl: string, token: string): string {
  return `${authUrl}${SETUP_PATH}?token=${token}`;
}

export async function createUser(
  stores: TenancyStores & UserStores,
  settings: Pick<Config, 'authUrl'>,
  input: { orgId: string; workspaceId: string; email: string; permissions: string[]; role?: Role },
  now: Date,
  /** `invitation` (7 days) when the console invites; the operator's setup link otherwise. */
  purpose: Exclude<LinkPurpose, 'reset'> = 'setup',
): Promise<{ user_id: string; email: string; role: Role; setup_url: string; setup_expires_at: string }> {
  await requireOrganization(stores, input.orgId);
  const workspace = await stores.tenancy.findWorkspaceOfOrg(input.orgId, input.workspaceId);
  if (!workspace) throw new Error(`workspace ${input.workspaceId} does not exist in organization ${input.orgId}`);
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email) || !withinMailboxLimits(email)) throw new Error('the email address is not valid');
  const permissions = [...new Set(input.permissions)];
  if (permissions.length === 0) throw new Error('give at least one permission');
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length) throw new Error(`unknown permissions: ${unknown.join(', ')}`);
  const role = input.role ?? 'member';
  if (!isRole(role)) throw new Error(`the role must be admin or member`);
  if (role === 'admin') await ensureAdminCount(stores, input.orgId);
  const userId = newId('usr');
  const link = issueLink(purpose, now);
  const applicationId = newId('app');
  try {
    await stores.users.insertUser({
      _id: userId,
      orgId: input.orgId,
      workspaceId: input.workspaceId,
      applicationId,
      email,
      permissions,
      role,
      setupTokenHash: link.hash,
      setupExpiresAt: link.expiresAt,
      setupPurpose: link.purpose,
    });
  } catch (err) {
    if (isDuplicateKeyError(err)) throw new Error(`a user with the email ${email} already exists`, { cause: err });
    throw err;
  }
  if (role === 'admin') await addAdminSeat(stores, input.orgId);
  await stores.tenancy.insertApplication({ _id: applicationId, orgId: input.orgId, name: `User ${userId}`, holder: 'person' });
  return { user_id: userId, email, role, setup_url: setupUrl(settings.authUrl, link.token), setup_expires_at: link.expiresAt.toISOString() };
}

/** A fresh one-time link (the first one expired, a resent invitation, a forgotten password); the old one stops working. */
export async function reissueSetup(
  stores: UserStores,
  settings: Pick<Config, 'authUrl'>,
  userId: string,
  now: Date,
  purpose: LinkPurpose = 'setup',
): Promise<{ user_id: string; setup_url: string; setup_expires_at: string }> {
  const user = await stores.users.findUser(userId);
  if (!user) throw new Error(`user ${userId} does not exist`);
  if (user.disabledAt) throw new Error(`user ${userId} is disabled`);
  const link = issueLink(purpose, now);
  await stores.users.setSetupToken(userId, link.hash, link.expiresAt, link.purpose);
  return { user_id: userId, setup_url: setupUrl(settings.authUrl, link.token), setup_expires_at: link.expiresAt.toISOString() };
}

function publicView(u: UserRecord) {
  return {
    user_id: u._id,
    email: u.email,
    org_id: u.orgId,
    workspace_id: u.workspaceId,
    role: roleOf(u),
    permissions: u.permissions,
    password_set: u.passwordHash !== null,
    created_at: u.createdAt?.toISOString() ?? null,
    last_sign_in_at: u.lastSignInAt?.toISOString() ?? null,
    disabled_at: u.disabledAt?.toISOString() ?? null,
  };
}

export async function listUsers(stores: TenancyStores & UserStores, orgId: string): Promise<{ org_id: string; users: unknown[] }> {
  await requireOrganization(stores, orgId);
  const users = await stores.users.usersOfOrg(orgId);
  return { org_id: orgId, users: users.map(publicView) };
}

export interface RoleChange {
  user_id: string;
  org_id: string;
  role_before: Role;
  role: Role;
}

/**
 * Makes a person `admin` or `member` of their organization. Demoting the last active admin is
 * refused (`last_admin`), whoever asks; a disabled person's role may change but counts for nothing.
 */
export async function setUserRole(stores: UserStores, userId: string, role: Role): Promise<RoleChange> {
  if (!isRole(role)) throw new Error('the role must be admin or member');
  const user = await stores.users.findUser(userId);
  if (!user) throw new Error(`user ${userId} does not exist`);
  const before = roleOf(user);
  const result = { user_id: userId, org_id: user.orgId, role_before: before, role };
  if (before === role) return result;
  const active = !user.disabledAt;
  if (role === 'member') {
    if (active) await releaseAdminSeat(stores, user.orgId, userId);
    const changed = await stores.users.changeUserRole(userId, 'member', user.disabledAt);
    // Changed or disabled meanwhile: the seat was not this call's to take.
    if (active && !changed) await addAdminSeat(stores, user.orgId);
    if (!changed) return setUserRole(stores, userId, role);
    return result;
  }
  if (active) await ensureAdminCount(stores, user.orgId);
  const changed = await stores.users.changeUserRole(userId, 'admin', user.disabledAt);
  if (!changed) return setUserRole(stores, userId, role);
  if (active) await addAdminSeat(stores, user.orgId);
  return result;
}

export interface PermissionChange {
  user_id: string;
  org_id: string;
  permissions_before: string[];
  permissions: string[];
}

/**
 * Replaces a person's permission set. Their tool-server tokens act with it from the next call
 * (every call re-reads the person), and keys they made keep their own.
 */
export async function setUserPermissions(stores: UserStores, userId: string, permissions: readonly string[]): Promise<PermissionChange> {
  const wanted = [...new Set(permissions)];
  if (wanted.length === 0) throw new Error('give at least one permission');
  const unknown = wanted.filter((p) => !isPermission(p));
  if (unknown.length) throw new Error(`unknown permissions: ${unknown.join(', ')}`);
  const user = await stores.users.findUser(userId);
  if (!user) throw new Error(`user ${userId} does not exist`);
  await stores.users.setUserPermissionSet(userId, wanted);
  return { user_id: userId, org_id: user.orgId, permissions_before: user.permissions, permissions: wanted };
}

/** The user when it exists and is not disabled; read from the store on every call (no cache outlives a disable). */
export async function findActiveUser(stores: UserStores, userId: string): Promise<UserRecord | null> {
  if (typeof userId !== 'string' || userId.length > 100) return null;
  const user = await stores.users.findUser(userId);
  return user && !user.disabledAt ? user : null;
}

export async function findUserByEmail(stores: UserStores, email: string): Promise<UserRecord | null> {
  if (typeof email !== 'string' || email.length > 320) return null;
  return stores.users.findUserWithEmail(normalizeEmail(email));
}

export type SetupLookup = { ok: true; user: UserRecord } | { ok: false };

/** The user a setup token belongs to, if the token is current and unused. */
export async function findSetupUser(stores: UserStores, token: string, now: Date): Promise<SetupLookup> {
  const hash = linkHashOf(token);
  if (!hash) return { ok: false };
  const user = await stores.users.findUserWithSetupTokenHash(hash);
  if (!user || user.disabledAt || !user.setupExpiresAt || user.setupExpiresAt <= now) return { ok: false };
  return { ok: true, user };
}

/** `replacedPassword`: the link replaced a password (a recovery), so every sign-in the old one opened was ended. */
export type SetupResult = { ok: true; user: UserRecord; replacedPassword: boolean } | { ok: false; reason: 'invalid_link' | 'password'; message: string };

/**
 * Sets the password through a setup token; the token works once (a unique insert decides between
 * concurrent uses). The caller then ends what earlier sign-ins opened (core/oauth/personAccess.ts
 * `endSignInsOf`), which reaches into the OAuth area this one sits below.
 */
/** `settings.oauth.passwordScryptLog2N` is the scrypt cost the new password is hashed at. */
export async function completeSetup(
  stores: UserStores,
  settings: Pick<Config, 'oauth'>,
  token: string,
  password: string,
  confirmation: string,
  now: Date,
): Promise<SetupResult> {
  const found = await findSetupUser(stores, token, now);
  if (!found.ok) return { ok: false, reason: 'invalid_link', message: 'This setup link is invalid, used or expired. Ask your administrator for a new one.' };
  const problem = passwordProblem(password, confirmation);
  if (problem) return { ok: false, reason: 'password', message: problem };
  const tokenHash = sha256Hex(token);
  if (!(await claimOnce(stores, `setup-used:${tokenHash}`, found.user.setupExpiresAt!))) {
    return { ok: false, reason: 'invalid_link', message: 'This setup link is invalid, used or expired. Ask your administrator for a new one.' };
  }
  const passwordHash = await hashPassword(password, settings.oauth.passwordScryptLog2N);
  await stores.users.setPasswordThroughSetup(found.user._id, tokenHash, passwordHash);
  await stores.users.acceptInvitationsOf(found.user._id);
  return { ok: true, user: { ...found.user, passwordHash }, replacedPassword: found.user.passwordHash !== null };
}
