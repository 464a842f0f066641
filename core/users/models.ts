import { Schema, model } from 'mongoose';

/**
 * People who sign in through the browser to connect an MCP client (DECISIONS.md "Interactive
 * sign-in"). A user belongs to one organization and workspace and carries a permission set with
 * the same names as API keys; tool calls act with exactly those permissions.
 */
const userSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    workspaceId: { type: String, required: true },
    /** An application made for the user, so limits and records have the same home as a key's. */
    applicationId: { type: String, required: true },
    /** Lower case; one account per address across the service (sign-in is by email alone). */
    email: { type: String, required: true, unique: true },
    permissions: { type: [String], required: true },
    /** `admin` runs the organization's account; documents written before roles existed read as `member`. */
    role: { type: String, enum: ['admin', 'member'], default: 'member' },
    /** `scrypt$…` (see passwords.ts); null until the person opens the setup link. */
    passwordHash: { type: String, default: null },
    /** SHA-256 of the one-time setup token; null once used. */
    setupTokenHash: { type: String, default: null, index: true },
    setupExpiresAt: { type: Date, default: null },
    /** What the current link is for: `invitation`, `setup` (the operator's) or `reset` (oneTimeLinks.ts). */
    setupPurpose: { type: String, enum: ['invitation', 'setup', 'reset', null], default: null },
    disabledAt: { type: Date, default: null },
    /** SHA-256 of the browser values the person signed in from (core/accounts/securityNotices.ts). */
    knownBrowsers: { type: [String], default: undefined },
    /** The last successful password sign-in (the console's Team page shows it). */
    lastSignInAt: { type: Date, default: null },
    /** The authenticator app's TOTP secret, sealed (core/crypto/secretBox.ts); null while none is turned on. */
    totpSecretSealed: { type: String, default: null },
    /** A secret shown on "Set up authenticator app" and not yet confirmed with a first code, sealed. */
    totpPendingSealed: { type: String, default: null },
    totpEnabledAt: { type: Date, default: null },
    /** The time step of the last code accepted: a code of that step or an earlier one is refused (used once). */
    totpLastStep: { type: Number, default: null },
    /** SHA-256 of each recovery code not yet used (core/users/secondFactor.ts). */
    recoveryCodeHashes: { type: [String], default: undefined },
  },
  { timestamps: true, versionKey: false },
);
export const User = model('User', userSchema, 'users');

/** A signed-in browser. Only the SHA-256 of the cookie value is stored. */
const browserSessionSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true, index: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    /** When the person last typed their password in this browser (sudo mode, sudoMode.ts); absent: at sign-in. */
    confirmedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
export const BrowserSession = model('BrowserSession', browserSessionSchema, 'browser_sessions');

/**
 * A password accepted for a person with a second factor, waiting for it (the "Two-factor
 * authentication" page). Keyed by the SHA-256 of the browser's cookie value, like a session, but
 * it is none: nothing signed in reads it.
 */
const signInChallengeSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
export const SignInChallenge = model('SignInChallenge', signInChallengeSchema, 'sign_in_challenges');

/**
 * How many active admins an organization has: the one document a demotion or a disable
 * decrements conditionally (`active > 1`), so two admins demoting each other at once cannot
 * leave none. Written before a promotion is counted and after a demotion is, so a crash
 * between the two writes leaves it counting fewer admins than there are (refusing more), never more.
 */
const orgAdminCountSchema = new Schema(
  {
    _id: { type: String, required: true },
    active: { type: Number, required: true },
  },
  { versionKey: false },
);
export const OrgAdminCount = model('OrgAdminCount', orgAdminCountSchema, 'org_admin_counts');

/**
 * An invitation the console sent. Recorded alike whether the address was new (a person was made,
 * `userId`, with a 7-day link) or already had an account (`userId` null: that address was mailed
 * that it was invited), so the inviter sees the same answer and the same Team row either way.
 */
const invitationSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    workspaceId: { type: String, required: true },
    email: { type: String, required: true },
    role: { type: String, enum: ['admin', 'member'], required: true },
    permissions: { type: [String], required: true },
    userId: { type: String, default: null, index: true },
    invitedBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** When the last mailed link stops working. */
    expiresAt: { type: Date, required: true },
    lastSentAt: { type: Date, required: true },
    status: { type: String, enum: ['pending', 'accepted', 'cancelled'], required: true },
  },
  { versionKey: false },
);
export const Invitation = model('Invitation', invitationSchema, 'invitations');

/**
 * One counted attempt (a sign-in failure, a registration) in a bounded set of slots per scope:
 * `_id` = `<scope>:<k>`. Taking a slot is a unique insert, so limits hold across replicas on
 * FerretDB too; a slot frees itself when `expiresAt` passes (deleted before reuse).
 */
const attemptSlotSchema = new Schema(
  {
    _id: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
export const AttemptSlot = model('OAuthAttemptSlot', attemptSlotSchema, 'oauth_attempt_slots');
