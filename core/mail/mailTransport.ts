import type { Transporter } from 'nodemailer';
import type { Config } from '../config';
import type { MailTransport } from './mailOutbox';

/** How long one attempt may wait on the mail server before it counts as failed (and is tried again). */
const CONNECT_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

/**
 * nodemailer over SMTP_URL, loaded with the first mail sent: a process that sends none does not
 * pay for loading it. Without SMTP_URL there is no transport: mail stays in the outbox until a
 * process with one runs.
 */
export function smtpTransport(config: Pick<Config, 'mail'>): MailTransport | null {
  const smtpUrl = config.mail.smtpUrl;
  if (!smtpUrl) return null;
  let transporter: Promise<Transporter> | undefined;
  const loaded = () =>
    (transporter ??= import('nodemailer').then(({ createTransport }) =>
      createTransport(smtpUrl.reveal(), {
        connectionTimeout: CONNECT_TIMEOUT_MS,
        greetingTimeout: CONNECT_TIMEOUT_MS,
        socketTimeout: SOCKET_TIMEOUT_MS,
      }),
    ));
  return {
    async send({ from, to, messageId, message }) {
      await (await loaded()).sendMail({ from, to, messageId, subject: message.subject, text: message.text, html: message.html });
    },
  };
}
