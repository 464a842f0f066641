import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';

/** A person who signs in through the browser (users.ts). */
export interface UserRecord {
  _id: string;
  orgId: string;
  workspaceId: string;
  applicationId: string;
  /** Lower case, unique across the service. */
  email: string;
  permissions: string[];
  /** Absent on documents written before roles existed: read it through adminSeats.ts `roleOf`. */
  role?: 'admin' | 'member';
  passwordHash: string | null;
  setupTokenHash: string | null;
  setupExpiresAt: Date | null;
  /** What the current link is for (oneTimeLinks.ts); absent on documents written before it was kept: `setup`. */
  setupPurpose?: 'invitation' | 'setup' | 'reset' | null;
  disabledAt: Date | null;
  /** SHA-256 of the browser values this person signed in from (core/accounts/securityNotices.ts), newest last. */
  knownBrowsers?: string[];
  /** The last successful sign-in; absent on documents written before it was kept. */
  lastSignInAt?: Date | null;
  /** The authenticator app's secret, sealed; absent or null while none is turned on. */
  totpSecretSealed?: string | null;
  /** A secret offered on "Set up authenticator app", sealed, until a first code confirms it. */
  totpPendingSealed?: string | null;
  totpEnabledAt?: Date | null;
  /** The time step of the last authenticator code accepted. */
  totpLastStep?: number | null;
  /** SHA-256 of each unused recovery code. */
  recoveryCodeHashes?: string[];
  createdAt?: Date;
}

/** A signed-in browser, keyed by the SHA-256 of its cookie value. */
export interface BrowserSessionRecord {
  _id: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  /** When the password was last typed in this browser; absent or null: at sign-in. */
  confirmedAt?: Date | null;
}

export interface SignInChallengeRecord {
  _id: string;
  userId: string;
  expiresAt: Date;
}

export interface InvitationRecord {
  _id: string;
  orgId: string;
  workspaceId: string;
  email: string;
  role: 'admin' | 'member';
  permissions: string[];
  /** The person made for it; null when the address already had an account. */
  userId: string | null;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  lastSentAt: Date;
  status: 'pending' | 'accepted' | 'cancelled';
}

export interface AttemptSlotRecord {
  _id: string;
  expiresAt: Date;
}

/** An organization's count of active admins (adminSeats.ts). */
export interface OrgAdminCountRecord {
  _id: string;
  active: number;
}

export interface PasskeyRecord {
  _id: string;
  userId: string;
  orgId: string;
  credentialId: string;
  publicKey: string;
  signCount: number;
  transports: string[];
  name: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface PasskeyChallengeRecord {
  _id: string;
  purpose: 'registration' | 'authentication';
  userId: string | null;
  sessionHash: string | null;
  expiresAt: Date;
}

/**
 * People who sign in through the browser to connect an MCP client (DECISIONS.md "Interactive
 * sign-in"). A user belongs to one organization and workspace and carries a permission set with
 * the same names as API keys; tool calls act with exactly those permissions.
 */
const userSchema = new Schema<UserRecord>(
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

/** A signed-in browser. Only the SHA-256 of the cookie value is stored. */
const browserSessionSchema = new Schema<BrowserSessionRecord>(
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

/**
 * A password accepted for a person with a second factor, waiting for it (the "Two-factor
 * authentication" page). Keyed by the SHA-256 of the browser's cookie value, like a session, but
 * it is none: nothing signed in reads it.
 */
const signInChallengeSchema = new Schema<SignInChallengeRecord>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * How many active admins an organization has: the one document a demotion or a disable
 * decrements conditionally (`active > 1`), so two admins demoting each other at once cannot
 * leave none. Written before a promotion is counted and after a demotion is, so a crash
 * between the two writes leaves it counting fewer admins than there are (refusing more), never more.
 */
const orgAdminCountSchema = new Schema<OrgAdminCountRecord>(
  {
    _id: { type: String, required: true },
    active: { type: Number, required: true },
  },
  { versionKey: false },
);

/**
 * An invitation the console sent. Recorded alike whether the address was new (a person was made,
 * `userId`, with a 7-day link) or already had an account (`userId` null: that address was mailed
 * that it was invited), so the inviter sees the same answer and the same Team row either way.
 */
const invitationSchema = new Schema<InvitationRecord>(
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

/**
 * One counted attempt (a sign-in failure, a registration) in a bounded set of slots per scope:
 * `_id` = `<scope>:<k>`. Taking a slot is a unique insert, so limits hold across replicas on
 * FerretDB too; a slot frees itself when `expiresAt` passes (deleted before reuse).
 */
const attemptSlotSchema = new Schema<AttemptSlotRecord>(
  {
    _id: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);

/**
 * A passkey keeps its credential's public key (not a secret: it only checks signatures) and
 * signature counter; a challenge is kept as its SHA-256 (passkeys.ts) until claimed or expired.
 */
const passkeySchema = new Schema<PasskeyRecord>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true, index: true },
    orgId: { type: String, required: true },
    /** The credential id the authenticator chose (base64url); one passkey per credential service-wide. */
    credentialId: { type: String, required: true, unique: true },
    /** COSE public key, base64url. */
    publicKey: { type: String, required: true },
    signCount: { type: Number, required: true },
    transports: { type: [String], default: [] },
    name: { type: String, required: true },
    /** Whether the authenticator said the credential is synced between devices (a "multi-device" passkey). */
    backedUp: { type: Boolean, default: false },
    createdAt: { type: Date, required: true },
    lastUsedAt: { type: Date, default: null },
  },
  { versionKey: false },
);

const passkeyChallengeSchema = new Schema<PasskeyChallengeRecord>(
  {
    /** SHA-256 of the challenge (passkeys.ts `challengeHash`). */
    _id: { type: String, required: true },
    purpose: { type: String, enum: ['registration', 'authentication'], required: true },
    /** Registration: the person adding a passkey. Authentication after the password: the person signing in. */
    userId: { type: String, default: null },
    /** Authentication: SHA-256 of the browser's session value, so another browser cannot answer it. */
    sessionHash: { type: String, default: null },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);

/** The area's models on the root's connection. */
export function userModels(connection: Connection) {
  return {
    users: boundModel<UserRecord>(connection, 'User', userSchema, 'users'),
    browserSessions: boundModel<BrowserSessionRecord>(connection, 'BrowserSession', browserSessionSchema, 'browser_sessions'),
    signInChallenges: boundModel<SignInChallengeRecord>(connection, 'SignInChallenge', signInChallengeSchema, 'sign_in_challenges'),
    orgAdminCounts: boundModel<OrgAdminCountRecord>(connection, 'OrgAdminCount', orgAdminCountSchema, 'org_admin_counts'),
    invitations: boundModel<InvitationRecord>(connection, 'Invitation', invitationSchema, 'invitations'),
    attemptSlots: boundModel<AttemptSlotRecord>(connection, 'OAuthAttemptSlot', attemptSlotSchema, 'oauth_attempt_slots'),
    passkeys: boundModel<PasskeyRecord>(connection, 'Passkey', passkeySchema, 'passkeys'),
    passkeyChallenges: boundModel<PasskeyChallengeRecord>(connection, 'PasskeyChallenge', passkeyChallengeSchema, 'passkey_challenges'),
  };
}
