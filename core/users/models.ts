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
    disabledAt: { type: Date, default: null },
    /** The last successful password sign-in (the console's Team page shows it). */
    lastSignInAt: { type: Date, default: null },
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
 * An invitation to an organization (console "Invite a person"): stored whether or not the address
 * already has an account somewhere, so the answer is the same for both (core/users/invitations.ts).
 * `pending` until the person sets a password through it (`accepted`); `mailedAt` is for the mail
 * step, which sends it and, for an address already in use, tells its owner instead.
 */
const invitationSchema = new Schema(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true, index: true },
    workspaceId: { type: String, required: true },
    email: { type: String, required: true },
    role: { type: String, enum: ['admin', 'member'], required: true },
    permissions: { type: [String], required: true },
    state: { type: String, enum: ['pending', 'accepted'], required: true },
    /** The account made for a new address; null for an address already in use. */
    userId: { type: String, default: null, index: true },
    invitedBy: { type: String, required: true },
    /** SHA-256 of the setup link's token. */
    setupTokenHash: { type: String, required: true },
    setupExpiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    mailedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
export const Invitation = model('Invitation', invitationSchema, 'invitations');
