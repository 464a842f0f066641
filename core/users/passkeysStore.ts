import { Schema, model } from 'mongoose';

/**
 * The passkeys' store: the one module that reads and writes `passkeys` and `passkey_challenges`.
 * A passkey keeps its credential's public key (not a secret: it only checks signatures) and
 * signature counter; a challenge is kept as its SHA-256 (passkeys.ts) until claimed or expired.
 */
const passkeySchema = new Schema(
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
const Passkey = model('Passkey', passkeySchema, 'passkeys');

const passkeyChallengeSchema = new Schema(
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
const PasskeyChallenge = model('PasskeyChallenge', passkeyChallengeSchema, 'passkey_challenges');

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

/** Stores a new passkey; a duplicate key error when the credential is registered already. */
export async function insertPasskey(passkey: PasskeyRecord): Promise<void> {
  await Passkey.create(passkey);
}

/** The person's passkeys, oldest first. */
export async function passkeysOfUser(userId: string): Promise<PasskeyRecord[]> {
  return Passkey.find({ userId }).sort({ createdAt: 1, _id: 1 }).lean<PasskeyRecord[]>();
}

export async function countPasskeysOfUser(userId: string): Promise<number> {
  return Passkey.countDocuments({ userId });
}

export async function findPasskeyWithCredentialId(credentialId: string): Promise<PasskeyRecord | null> {
  return Passkey.findOne({ credentialId }).lean<PasskeyRecord>();
}

/** One of the person's passkeys, or null: another person's reads as absent. */
export async function findPasskeyOfUser(userId: string, passkeyId: string): Promise<PasskeyRecord | null> {
  return Passkey.findOne({ _id: passkeyId, userId }).lean<PasskeyRecord>();
}

/** Names one of the person's passkeys; answers whether it is still theirs. */
export async function renamePasskeyOfUser(userId: string, passkeyId: string, name: string): Promise<boolean> {
  return (await Passkey.updateOne({ _id: passkeyId, userId }, { $set: { name } })).matchedCount === 1;
}

/** Deletes one of the person's passkeys; answers whether this call did. */
export async function deletePasskeyOfUser(userId: string, passkeyId: string): Promise<boolean> {
  return (await Passkey.deleteOne({ _id: passkeyId, userId })).deletedCount === 1;
}

/**
 * Records a sign-in with the passkey: its new counter and when, only if the counter is still the
 * one the check was made against, so two sign-ins racing with one counter value do not both count.
 */
export async function recordPasskeyUse(passkeyId: string, checkedCount: number, newCount: number, at: Date): Promise<boolean> {
  const changed = await Passkey.updateOne({ _id: passkeyId, signCount: checkedCount }, { $set: { signCount: newCount, lastUsedAt: at } });
  return changed.matchedCount === 1;
}

export async function insertPasskeyChallenge(challenge: PasskeyChallengeRecord): Promise<void> {
  await PasskeyChallenge.create(challenge);
}

/**
 * Claims a live challenge of this purpose and binding, deleting it: true once, false for a
 * challenge never issued, issued for something else, expired at `now` or claimed already.
 */
export async function claimPasskeyChallenge(
  hash: string,
  purpose: PasskeyChallengeRecord['purpose'],
  binding: { userId: string | null; sessionHash: string | null },
  now: Date,
): Promise<boolean> {
  const claimed = await PasskeyChallenge.findOneAndDelete({
    _id: hash,
    purpose,
    userId: binding.userId,
    sessionHash: binding.sessionHash,
    expiresAt: { $gt: now },
  }).lean();
  return claimed !== null;
}

/** Deletes the challenges expired at `now`; answers how many. */
export async function deleteExpiredPasskeyChallenges(now: Date): Promise<number> {
  return (await PasskeyChallenge.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
}
