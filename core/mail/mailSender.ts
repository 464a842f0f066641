import type { Config } from '../config';
import type { PurposeKeys } from '../crypto/purposeKeys';
import type { Logger } from '../observability/logger';
import { runEvery } from '../periodicPass';
import { deliverDueMail, type MailTransport } from './mailOutbox';
import { smtpTransport } from './mailTransport';
import type { MailStores } from './store';

export interface MailSender {
  /** One pass now (tests, and the loop). */
  pass(): Promise<{ sent: number; failed: number }>;
  stop(): Promise<void>;
}

/**
 * The mail sender, one in every API replica and worker: every MAIL_SENDER_INTERVAL_MS it hands
 * the outbox's due mail to the mail server (mailOutbox.ts). Without SMTP_URL it does nothing and
 * says so once: the mail waits.
 */
export function startMailSender(
  stores: MailStores,
  config: Config,
  opts: { logger: Logger; now: () => number; keys: PurposeKeys; transport?: MailTransport | null },
): MailSender {
  const transport = opts.transport === undefined ? smtpTransport(config) : opts.transport;
  const { logger } = opts;
  const now = () => new Date(opts.now());
  if (!transport) logger.warn('SMTP_URL is not set: mail is kept in the outbox and sent once a process with SMTP_URL runs');

  async function pass(): Promise<{ sent: number; failed: number }> {
    if (!transport) return { sent: 0, failed: 0 };
    const tally = await deliverDueMail(stores, config, opts.keys, transport, now);
    if (tally.failed) logger.warn(tally, 'mail sender: the mail server did not take a mail; it is tried again later');
    return tally;
  }

  const loop = transport ? runEvery(config.mail.senderIntervalMs, pass, 'mail sender', logger) : null;
  return { pass, stop: async () => loop?.stop() };
}
