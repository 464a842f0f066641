import type { Connection } from 'mongoose';
import { userModels, type PasskeyChallengeRecord, type PasskeyRecord } from './models';

export type { PasskeyChallengeRecord, PasskeyRecord } from './models';

/**
 * The passkeys' store: the one module that reads and writes `passkeys` and `passkey_challenges`.
 */

/** The passkeys' store on the root's connection (core/deps.ts `createStores`). */
export function createPasskeyStore(connection: Connection) {
  const { passkeys: Passkey, passkeyChallenges: PasskeyChallenge } = userModels(connection);
  return {
    /** Stores a new passkey; a duplicate key error when the credential is registered already. */
    async insertPasskey(passkey: PasskeyRecord): Promise<void> {
      await Passkey.create(passkey);
    },

    /** The person's passkeys, oldest first. */
    async passkeysOfUser(userId: string): Promise<PasskeyRecord[]> {
      return Passkey.find({ userId }).sort({ createdAt: 1, _id: 1 }).lean<PasskeyRecord[]>();
    },

    async countPasskeysOfUser(userId: string): Promise<number> {
      return Passkey.countDocuments({ userId });
    },

    async findPasskeyWithCredentialId(credentialId: string): Promise<PasskeyRecord | null> {
      return Passkey.findOne({ credentialId }).lean<PasskeyRecord>();
    },

    /** One of the person's passkeys, or null: another person's reads as absent. */
    async findPasskeyOfUser(userId: string, passkeyId: string): Promise<PasskeyRecord | null> {
      return Passkey.findOne({ _id: passkeyId, userId }).lean<PasskeyRecord>();
    },

    /** Names one of the person's passkeys; answers whether it is still theirs. */
    async renamePasskeyOfUser(userId: string, passkeyId: string, name: string): Promise<boolean> {
      return (await Passkey.updateOne({ _id: passkeyId, userId }, { $set: { name } })).matchedCount === 1;
    },

    /** Deletes one of the person's passkeys; answers whether this call did. */
    async deletePasskeyOfUser(userId: string, passkeyId: string): Promise<boolean> {
      return (await Passkey.deleteOne({ _id: passkeyId, userId })).deletedCount === 1;
    },

    /**
     * Records a sign-in with the passkey: its new counter and when, only if the counter is still the
     * one the check was made against, so two sign-ins racing with one counter value do not both count.
     */
    async recordPasskeyUse(passkeyId: string, checkedCount: number, newCount: number, at: Date): Promise<boolean> {
      const changed = await Passkey.updateOne({ _id: passkeyId, signCount: checkedCount }, { $set: { signCount: newCount, lastUsedAt: at } });
      return changed.matchedCount === 1;
    },

    async insertPasskeyChallenge(challenge: PasskeyChallengeRecord): Promise<void> {
      await PasskeyChallenge.create(challenge);
    },

    /**
     * Claims a live challenge of this purpose and binding, deleting it: true once, false for a
     * challenge never issued, issued for something else, expired at `now` or claimed already.
     */
    async claimPasskeyChallenge(
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
    },

    /** Deletes the challenges expired at `now`; answers how many. */
    async deleteExpiredPasskeyChallenges(now: Date): Promise<number> {
      return (await PasskeyChallenge.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

export type PasskeyStore = ReturnType<typeof createPasskeyStore>;

/** What the passkey ceremonies read and write through: the root's stores (`deps.stores`) or any object holding the passkeys' store. */
export interface PasskeyStores {
  passkeys: PasskeyStore;
}
