import type { Connection } from 'mongoose';
import { mailModels, type OutboxMailRecord } from './models';

export type { OutboxMailRecord } from './models';

/** The mail outbox's store port on the root's connection: plain records in, plain records out. */
export function createMailStore(connection: Connection) {
  const { outbox: OutboxMail } = mailModels(connection);
  return {
    async insertOutboxMail(mail: Pick<OutboxMailRecord, '_id' | 'to' | 'kind' | 'sealed' | 'createdAt' | 'dueAt'>): Promise<void> {
      await OutboxMail.create({ ...mail, leaseUntil: null, attempts: 0, sentAt: null, lastError: null, abandonedAt: null });
    },

    /** Ids of unsent mail due at `now` and held by no sender, oldest due first. */
    async dueOutboxMailIds(now: Date, limit: number): Promise<string[]> {
      const due = await OutboxMail.find(
        { sentAt: null, abandonedAt: null, dueAt: { $lte: now }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
        { _id: 1 },
      )
        .sort({ dueAt: 1 })
        .limit(limit)
        .lean<Array<{ _id: string }>>();
      return due.map((m) => m._id);
    },

    /** Takes the mail until `until` for one attempt; null when it was sent, abandoned or is held by another sender. */
    async leaseOutboxMail(mailId: string, until: Date, now: Date): Promise<OutboxMailRecord | null> {
      return OutboxMail.findOneAndUpdate(
        { _id: mailId, sentAt: null, abandonedAt: null, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
        { $set: { leaseUntil: until }, $inc: { attempts: 1 } },
        { returnDocument: 'after' },
      ).lean<OutboxMailRecord>();
    },

    async markOutboxMailSent(mailId: string, at: Date): Promise<void> {
      await OutboxMail.updateOne({ _id: mailId }, { $set: { sentAt: at, leaseUntil: null, lastError: null } });
    },

    async markOutboxMailFailed(mailId: string, nextDueAt: Date, error: string): Promise<void> {
      await OutboxMail.updateOne({ _id: mailId, sentAt: null }, { $set: { dueAt: nextDueAt, leaseUntil: null, lastError: error } });
    },

    async markOutboxMailAbandoned(mailId: string, at: Date, error: string): Promise<void> {
      await OutboxMail.updateOne({ _id: mailId, sentAt: null }, { $set: { abandonedAt: at, leaseUntil: null, lastError: error } });
    },

    /** The outbox entries to one address, oldest first (the operator's view, and tests). */
    async outboxMailTo(to: string): Promise<OutboxMailRecord[]> {
      return OutboxMail.find({ to }).sort({ createdAt: 1 }).lean<OutboxMailRecord[]>();
    },

    /** Deletes entries sent or abandoned before `before`; answers how many. */
    async deleteSettledOutboxMail(before: Date): Promise<number> {
      const sent = await OutboxMail.deleteMany({ sentAt: { $ne: null, $lte: before } });
      const abandoned = await OutboxMail.deleteMany({ abandonedAt: { $ne: null, $lte: before } });
      return sent.deletedCount + abandoned.deletedCount;
    },
  };
}

export type MailStore = ReturnType<typeof createMailStore>;

/** What the area's functions read and write through: the root's stores (`deps.stores`) or any object holding the mail store. */
export interface MailStores {
  mail: MailStore;
}
