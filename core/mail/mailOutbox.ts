import type { Config } from '../config';
import type { PurposeKeys } from '../crypto/purposeKeys';
import { openSecret, sealSecret } from '../crypto/secretBox';
import { newId } from '../ids';
import type { MailMessage, MailOf } from './mailMessages';
import type { MailStores, OutboxMailRecord } from './store';

/**
 * Mail is sent through the outbox: `queueMail` records it (the caller's page answers at once),
 * and `deliverDueMail` hands due entries to the mail server, each under a lease so two senders
 * never hold one mail at once, marked sent only once the server accepted it. A refused or
 * unreachable server moves the entry's next attempt on (doubling up to MAIL_RETRY_MAX_DELAY_MS),
 * so an outage loses nothing; a mail still unsent after MAIL_GIVE_UP_MS is given up (its links
 * have expired by then).
 */
export const MAIL_LEASE_MS = 60_000;
export const MAIL_GIVE_UP_MS = 7 * 24 * 3600_000;
const FIRST_RETRY_MS = 1000;
const MAILS_PER_PASS = 20;

/** What hands a message to the mail server (nodemailer in the processes; mailTransport.ts). */
export interface MailTransport {
  /** Resolves once the server accepted the message; `messageId` is the same on every attempt of one entry. */
  send(mail: { from: string; to: string; messageId: string; message: MailMessage }): Promise<void>;
}

function aadOf(mailId: string): string {
  return `mail:${mailId}`;
}

/** Records a mail to `to`; the mail sender delivers it. Answers the outbox entry's id. */
export async function queueMail(stores: MailStores, keys: PurposeKeys, to: string, mail: MailOf, now: Date): Promise<string> {
  const id = newId('mail');
  await stores.mail.insertOutboxMail({
    _id: id,
    to,
    kind: mail.kind,
    sealed: sealSecret(keys, JSON.stringify(mail.message), aadOf(id)),
    createdAt: now,
    dueAt: now,
  });
  return id;
}

/** How long after failed attempt number `attempts` the next one starts. */
export function retryDelayMs(attempts: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, FIRST_RETRY_MS * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}

function messageIdOf(config: Pick<Config, 'authUrl'>, mailId: string): string {
  return `<${mailId}@${new URL(config.authUrl).hostname}>`;
}

async function attempt(
  stores: MailStores,
  config: Pick<Config, 'authUrl' | 'mail'>,
  keys: PurposeKeys,
  transport: MailTransport,
  mail: OutboxMailRecord,
  now: Date,
) {
  if (now.getTime() - mail.createdAt.getTime() > MAIL_GIVE_UP_MS) {
    await stores.mail.markOutboxMailAbandoned(mail._id, now, mail.lastError ?? 'not delivered in time');
    return 'abandoned' as const;
  }
  const message = JSON.parse(openSecret(keys, mail.sealed, aadOf(mail._id))) as MailMessage;
  try {
    await transport.send({ from: config.mail.from, to: mail.to, messageId: messageIdOf(config, mail._id), message });
  } catch (err) {
    const said = ((err as Error)?.message ?? 'failed').slice(0, 300);
    await stores.mail.markOutboxMailFailed(mail._id, new Date(now.getTime() + retryDelayMs(mail.attempts, config.mail.retryMaxDelayMs)), said);
    return 'failed' as const;
  }
  await stores.mail.markOutboxMailSent(mail._id, now);
  return 'sent' as const;
}

/** One pass over the due mail: answers how many were sent and how many failed (to be tried again). */
export async function deliverDueMail(
  stores: MailStores,
  config: Pick<Config, 'authUrl' | 'mail'>,
  keys: PurposeKeys,
  transport: MailTransport,
  now: () => Date,
): Promise<{ sent: number; failed: number }> {
  const tally = { sent: 0, failed: 0 };
  for (const mailId of await stores.mail.dueOutboxMailIds(now(), MAILS_PER_PASS)) {
    const at = now();
    const mail = await stores.mail.leaseOutboxMail(mailId, new Date(at.getTime() + MAIL_LEASE_MS), at);
    if (!mail) continue;
    const outcome = await attempt(stores, config, keys, transport, mail, at);
    if (outcome === 'sent') tally.sent += 1;
    if (outcome === 'failed') {
      tally.failed += 1;
      // The server is down or refusing: the rest waits for their own next attempt.
      break;
    }
  }
  return tally;
}
