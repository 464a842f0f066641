import type { Connection } from 'mongoose';
import { insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';
import { userModels, type AttemptSlotRecord, type BrowserSessionRecord, type InvitationRecord, type SignInChallengeRecord, type UserRecord } from './models';

export type { AttemptSlotRecord, BrowserSessionRecord, InvitationRecord, SignInChallengeRecord, UserRecord } from './models';

/**
 * The users area's store: the one module that reads and writes `users`, `browser_sessions`,
 * `invitations`, `org_admin_counts` and `oauth_attempt_slots`. It answers with plain records;
 * sign-in, roles, the last-admin rule and attempt limits live with the callers.
 */

/** The users area's store on the root's connection (core/deps.ts `createStores`). */
export function createUserStore(connection: Connection) {
  const {
    users: User,
    browserSessions: BrowserSession,
    signInChallenges: SignInChallenge,
    orgAdminCounts: OrgAdminCount,
    invitations: Invitation,
    attemptSlots: AttemptSlot,
  } = userModels(connection);
  return {
    // ---- users --------------------------------------------------------------------------------

    /** Stores a new person; a duplicate key error when the email is taken. */
    async insertUser(
      user: Pick<
        UserRecord,
        '_id' | 'orgId' | 'workspaceId' | 'applicationId' | 'email' | 'permissions' | 'setupTokenHash' | 'setupExpiresAt' | 'setupPurpose'
      > & {
        role: 'admin' | 'member';
      },
    ): Promise<void> {
      await User.create(user);
    },

    /** A person by id whatever the organization, or null. */
    async findUser(userId: string): Promise<UserRecord | null> {
      return User.findById(userId).lean<UserRecord>();
    },

    /** A person of this organization, or null: another organization's reads as absent. */
    async findUserOfOrg(orgId: string, userId: string): Promise<UserRecord | null> {
      return User.findOne({ _id: userId, orgId }).lean<UserRecord>();
    },

    /** The person with this (normalized) email, or null. */
    async findUserWithEmail(email: string): Promise<UserRecord | null> {
      return User.findOne({ email }).lean<UserRecord>();
    },

    /** The person whose setup token has this hash, or null. */
    async findUserWithSetupTokenHash(setupTokenHash: string): Promise<UserRecord | null> {
      return User.findOne({ setupTokenHash }).lean<UserRecord>();
    },

    /** The email of each of these people of the organization (others, and absent ids, are left out). */
    async emailsOfUsers(orgId: string, userIds: readonly string[]): Promise<Array<Pick<UserRecord, '_id' | 'email'>>> {
      if (userIds.length === 0) return [];
      return User.find({ orgId, _id: { $in: [...userIds] } }, { email: 1 }).lean<Array<Pick<UserRecord, '_id' | 'email'>>>();
    },

    /** The organization's people, oldest first. */
    async usersOfOrg(orgId: string): Promise<UserRecord[]> {
      return User.find({ orgId }).sort({ createdAt: 1 }).lean<UserRecord[]>();
    },

    /** Up to `limit` of the organization's people, oldest first, after skipping `skip`. */
    async pageOfUsersOfOrg(orgId: string, skip: number, limit: number): Promise<UserRecord[]> {
      return User.find({ orgId }).sort({ createdAt: 1, _id: 1 }).skip(skip).limit(limit).lean<UserRecord[]>();
    },

    /** How many active admins the organization's user documents name. */
    async countActiveAdmins(orgId: string): Promise<number> {
      return User.countDocuments({ orgId, role: 'admin', disabledAt: null });
    },

    /** Replaces the person's setup token (its hash) and when it expires. */
    async setSetupToken(userId: string, setupTokenHash: string, setupExpiresAt: Date, setupPurpose: 'invitation' | 'setup' | 'reset'): Promise<void> {
      await User.updateOne({ _id: userId }, { $set: { setupTokenHash, setupExpiresAt, setupPurpose } });
    },

    /** Disables the person (and voids their setup token) unless already disabled; answers whether this call did. */
    async markUserDisabled(userId: string, at: Date): Promise<boolean> {
      const changed = await User.updateOne({ _id: userId, disabledAt: null }, { $set: { disabledAt: at, setupTokenHash: null } });
      return changed.modifiedCount === 1;
    },

    /**
     * Gives the person `role` if they do not have it yet and are still as disabled as `disabledAt`
     * says; answers whether this call changed it (false: someone changed them meanwhile).
     */
    async changeUserRole(userId: string, role: 'admin' | 'member', disabledAt: Date | null): Promise<boolean> {
      const changed =
        role === 'member'
          ? await User.updateOne({ _id: userId, role: 'admin', disabledAt }, { $set: { role } })
          : await User.updateOne({ _id: userId, role: { $ne: 'admin' }, disabledAt }, { $set: { role } });
      return changed.modifiedCount === 1;
    },

    async setUserPermissionSet(userId: string, permissions: string[]): Promise<void> {
      await User.updateOne({ _id: userId }, { $set: { permissions } });
    },

    async setKnownBrowsers(userId: string, knownBrowsers: string[]): Promise<void> {
      await User.updateOne({ _id: userId }, { $set: { knownBrowsers } });
    },

    async recordSignInTime(userId: string, at: Date): Promise<void> {
      await User.updateOne({ _id: userId }, { $set: { lastSignInAt: at } });
    },

    /** Takes the person's stored role away, as documents written before roles existed have none (tests of those documents). */
    async unsetUserRole(userId: string): Promise<void> {
      await User.updateOne({ _id: userId }, { $unset: { role: '' } });
    },

    /** Sets the password hash and voids the setup token, if the person still holds that token. */
    async setPasswordThroughSetup(userId: string, setupTokenHash: string, passwordHash: string): Promise<void> {
      await User.updateOne({ _id: userId, setupTokenHash }, { $set: { passwordHash, setupTokenHash: null, setupExpiresAt: null, setupPurpose: null } });
    },

    // ---- second factor ------------------------------------------------------------------------

    async setPendingTotpSecret(userId: string, sealed: string): Promise<void> {
      await User.updateOne({ _id: userId }, { $set: { totpPendingSealed: sealed } });
    },

    /**
     * Turns on the authenticator app with the pending secret it was confirmed with (if it is still the
     * pending one: a second tab's newer secret wins), its first code's step and the recovery codes.
     */
    async enableTotp(userId: string, pendingSealed: string, timeStep: number, recoveryCodeHashes: string[], at: Date): Promise<boolean> {
      const changed = await User.updateOne(
        { _id: userId, totpPendingSealed: pendingSealed },
        { $set: { totpSecretSealed: pendingSealed, totpPendingSealed: null, totpLastStep: timeStep, totpEnabledAt: at, recoveryCodeHashes } },
      );
      return changed.modifiedCount === 1;
    },

    /** Turns the authenticator app off; answers whether it was on. Recovery codes go with it unless `keepRecoveryCodes`. */
    async disableTotp(userId: string, keepRecoveryCodes: boolean): Promise<boolean> {
      const off = { totpSecretSealed: null, totpPendingSealed: null, totpLastStep: null, totpEnabledAt: null };
      const changed = await User.updateOne(
        { _id: userId, totpSecretSealed: { $ne: null } },
        { $set: keepRecoveryCodes ? off : { ...off, recoveryCodeHashes: [] } },
      );
      return changed.modifiedCount === 1;
    },

    /** Records an accepted code's step, if no code of this step or a later one was accepted meanwhile (two tabs, one code). */
    async acceptTotpStep(userId: string, timeStep: number): Promise<boolean> {
      const changed = await User.updateOne(
        { _id: userId, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: timeStep } }] },
        { $set: { totpLastStep: timeStep } },
      );
      return changed.modifiedCount === 1;
    },

    async setRecoveryCodeHashes(userId: string, recoveryCodeHashes: string[]): Promise<void> {
      await User.updateOne({ _id: userId }, { $set: { recoveryCodeHashes } });
    },

    /** Takes one recovery code (its hash) out of the person's unused ones; false when it was not there (used or wrong). */
    async consumeRecoveryCode(userId: string, hash: string): Promise<boolean> {
      const changed = await User.updateOne({ _id: userId, recoveryCodeHashes: hash }, { $pull: { recoveryCodeHashes: hash } });
      return changed.modifiedCount === 1;
    },

    // ---- sign-in challenges -------------------------------------------------------------------

    async insertSignInChallenge(challenge: SignInChallengeRecord): Promise<void> {
      await SignInChallenge.create(challenge);
    },

    async findSignInChallenge(challengeHash: string): Promise<SignInChallengeRecord | null> {
      return SignInChallenge.findById(challengeHash).lean<SignInChallengeRecord>();
    },

    /** Deletes the challenge; answers whether this call did (two posts of one right code make one session). */
    async deleteSignInChallenge(challengeHash: string): Promise<boolean> {
      return (await SignInChallenge.deleteOne({ _id: challengeHash })).deletedCount === 1;
    },

    /** Deletes the challenges expired at `now`; answers how many. */
    async deleteExpiredSignInChallenges(now: Date): Promise<number> {
      return (await SignInChallenge.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },

    // ---- browser sessions ---------------------------------------------------------------------

    async insertBrowserSession(session: Omit<BrowserSessionRecord, 'confirmedAt'>): Promise<void> {
      await BrowserSession.create(session);
    },

    async findBrowserSession(sessionHash: string): Promise<BrowserSessionRecord | null> {
      return BrowserSession.findById(sessionHash).lean<BrowserSessionRecord>();
    },

    async deleteBrowserSession(sessionHash: string): Promise<void> {
      await BrowserSession.deleteOne({ _id: sessionHash });
    },

    async deleteBrowserSessionsOf(userId: string): Promise<void> {
      await BrowserSession.deleteMany({ userId });
    },

    async setSessionConfirmedAt(sessionHash: string, at: Date): Promise<void> {
      await BrowserSession.updateOne({ _id: sessionHash }, { $set: { confirmedAt: at } });
    },

    /** Moves the person's sessions' start back to `createdAt`, with no password typed since (a test leaves sudo mode instead of waiting). */
    async backdateBrowserSessionsOf(userId: string, createdAt: Date): Promise<void> {
      await BrowserSession.updateMany({ userId }, { $set: { createdAt, confirmedAt: null } });
    },

    /** Deletes the sessions expired at `now`; answers how many. */
    async deleteExpiredBrowserSessions(now: Date): Promise<number> {
      return (await BrowserSession.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },

    // ---- admin counts -------------------------------------------------------------------------

    async adminCountExists(orgId: string): Promise<boolean> {
      return (await OrgAdminCount.exists({ _id: orgId })) !== null;
    },

    /** Stores the organization's admin count; a duplicate key error when another caller stored it first. */
    async insertAdminCount(orgId: string, active: number): Promise<void> {
      await OrgAdminCount.create({ _id: orgId, active });
    },

    async incrementAdminCount(orgId: string): Promise<void> {
      await OrgAdminCount.updateOne({ _id: orgId }, { $inc: { active: 1 } });
    },

    /** Takes one admin from the count unless it is the last; answers whether it did. */
    async decrementAdminCountAboveOne(orgId: string): Promise<boolean> {
      const taken = await OrgAdminCount.findOneAndUpdate({ _id: orgId, active: { $gt: 1 } }, { $inc: { active: -1 } }, { returnDocument: 'after' }).lean();
      return taken !== null;
    },

    // ---- invitations --------------------------------------------------------------------------

    async insertInvitation(invitation: InvitationRecord): Promise<void> {
      await Invitation.create(invitation);
    },

    /** An invitation of this organization, or null: another organization's reads as absent. */
    async findInvitationOfOrg(orgId: string, invitationId: string): Promise<InvitationRecord | null> {
      return Invitation.findOne({ _id: invitationId, orgId }).lean<InvitationRecord>();
    },

    /** The newest invitation to this address (of this organization, when given), or null. */
    async newestInvitationTo(email: string, orgId?: string): Promise<InvitationRecord | null> {
      return Invitation.findOne(orgId ? { email, orgId } : { email })
        .sort({ createdAt: -1, _id: -1 })
        .lean<InvitationRecord>();
    },

    /** The organization's pending invitations, oldest first, at most `limit`. */
    async pendingInvitationsOfOrg(orgId: string, limit: number): Promise<InvitationRecord[]> {
      return Invitation.find({ orgId, status: 'pending' }).sort({ createdAt: 1, _id: 1 }).limit(limit).lean<InvitationRecord[]>();
    },

    /** Records a new mailing of a pending invitation; false when it is no longer pending. */
    async markInvitationSent(invitationId: string, at: Date, expiresAt: Date): Promise<boolean> {
      return (await Invitation.updateOne({ _id: invitationId, status: 'pending' }, { $set: { lastSentAt: at, expiresAt } })).modifiedCount === 1;
    },

    /** Moves a pending invitation to `status`; false when it was not pending any more. */
    async closeInvitation(invitationId: string, status: 'accepted' | 'cancelled'): Promise<boolean> {
      return (await Invitation.updateOne({ _id: invitationId, status: 'pending' }, { $set: { status } })).modifiedCount === 1;
    },

    /** Accepts the pending invitations that made this person (their first password). */
    async acceptInvitationsOf(userId: string): Promise<void> {
      await Invitation.updateMany({ userId, status: 'pending' }, { $set: { status: 'accepted' } });
    },

    /** Deletes a person who never set a password (a cancelled invitation's), so the address can be invited again. */
    async deleteUserWithoutPassword(userId: string): Promise<boolean> {
      return (await User.deleteOne({ _id: userId, passwordHash: null })).deletedCount === 1;
    },

    // ---- attempt slots ------------------------------------------------------------------------

    async findAttemptSlots(slotIds: readonly string[]): Promise<AttemptSlotRecord[]> {
      return AttemptSlot.find({ _id: { $in: [...slotIds] } }).lean<AttemptSlotRecord[]>();
    },

    async liveAttemptSlots(slotIds: readonly string[], now: Date): Promise<AttemptSlotRecord[]> {
      return AttemptSlot.find({ _id: { $in: [...slotIds] }, expiresAt: { $gt: now } }).lean<AttemptSlotRecord[]>();
    },

    /**
     * Takes a slot; false when it is held.
     * FerretDB: 1.x does not apply concurrent conditional updates atomically, but never lets two inserts of one `_id` both succeed.
     */
    async insertAttemptSlot(slotId: string, expiresAt: Date): Promise<boolean> {
      return insertOnce(typedCollection<AttemptSlotRecord>(AttemptSlot), { _id: slotId, expiresAt });
    },

    /** Deletes a slot only if it is still expired at `now` (so a slot taken meanwhile stays). */
    async deleteExpiredAttemptSlot(slotId: string, now: Date): Promise<void> {
      await AttemptSlot.deleteOne({ _id: slotId, expiresAt: { $lte: now } });
    },

    async deleteAttemptSlot(slotId: string): Promise<void> {
      await AttemptSlot.deleteOne({ _id: slotId });
    },

    /** Deletes the slots expired at `now`; answers how many. */
    async deleteExpiredAttemptSlots(now: Date): Promise<number> {
      return (await AttemptSlot.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;

/** What the area's functions read and write through: the root's stores (`deps.stores`) or any object holding the users store. */
export interface UserStores {
  users: UserStore;
}
