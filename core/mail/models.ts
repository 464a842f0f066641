import { Schema, type Connection } from 'mongoose';
import { boundModel } from '../store/boundModel';

/** One entry of the mail outbox, as stored. */
export interface OutboxMailRecord {
  _id: string;
  to: string;
  kind: string;
  sealed: string;
  createdAt: Date;
  dueAt: Date;
  leaseUntil: Date | null;
  attempts: number;
  sentAt: Date | null;
  lastError: string | null;
  abandonedAt: Date | null;
}

/**
 * The mail outbox: every mail the service sends is first an entry here, written by the request
 * that caused it, and handed to the mail server by the mail sender (mailSender.ts) of any API
 * replica or worker. The message is sealed (a mail may carry a one-time link), so the store holds
 * no link in plaintext; the recipient and the message's kind are plain for the operator.
 */
const outboxMailSchema = new Schema<OutboxMailRecord>(
  {
    _id: { type: String, required: true },
    to: { type: String, required: true },
    /** The message's name (mailMessages.ts), never its content. */
    kind: { type: String, required: true },
    /** `{subject, text, html}` sealed with the secret box under the mail's id. */
    sealed: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** When the next attempt may start: a failed attempt moves it on (backing off). */
    dueAt: { type: Date, required: true, index: true },
    /** A sender holds the mail until then; another sender takes it only after. */
    leaseUntil: { type: Date, default: null },
    attempts: { type: Number, default: 0 },
    /** Null until the mail server accepted it; then the entry is never sent again. */
    sentAt: { type: Date, default: null, index: true },
    /** What the last failed attempt said (the server's answer, no content). */
    lastError: { type: String, default: null },
    /** Set when the mail was given up (too old to matter); it is not tried again. */
    abandonedAt: { type: Date, default: null },
  },
  { versionKey: false },
);

/** The area's models on the root's connection. */
export function mailModels(connection: Connection) {
  return { outbox: boundModel<OutboxMailRecord>(connection, 'OutboxMail', outboxMailSchema, 'mail_outbox') };
}
