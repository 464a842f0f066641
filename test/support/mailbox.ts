import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { eventually } from './eventually';

/**
 * A real SMTP receiver in the test process (smtp-server), standing in for Mailpit: the API's mail
 * sender hands mail to it over SMTP like to any server, and a test reads what arrived. It can be
 * stopped and started again on its port, to play a mail server outage.
 */
export interface ReceivedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

export class Mailbox {
  readonly received: ReceivedMail[] = [];
  private server: SMTPServer | null = null;
  private bound = 0;

  static async start(): Promise<Mailbox> {
    const box = new Mailbox();
    box.bound = await box.listen(0);
    return box;
  }

  get port(): number {
    return this.bound;
  }

  /** What SMTP_URL names for the API. */
  get smtpUrl(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  private listen(port: number): Promise<number> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, done) => {
        simpleParser(stream).then(
          (parsed) => {
            const to = Array.isArray(parsed.to) ? parsed.to.flatMap((t) => t.value) : (parsed.to?.value ?? []);
            this.received.push({
              to: to.map((a) => a.address ?? '').join(','),
              from: parsed.from?.value[0]?.address ?? '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              messageId: parsed.messageId ?? '',
            });
            done();
          },
          (err: Error) => done(err),
        );
      },
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        const address = server.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  /** Stops taking mail (connections are refused) until `resume`. */
  async pause(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async resume(): Promise<void> {
    await this.listen(this.port);
  }

  async stop(): Promise<void> {
    await this.pause();
  }

  /** The mails to `to` so far. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to.toLowerCase() === address.toLowerCase());
  }

  /** The first mail to `to` whose subject contains `subject`, once it arrived. */
  async waitFor(address: string, subject: string, timeoutMs = 20_000): Promise<ReceivedMail> {
    return eventually(`a mail to ${address} about "${subject}"`, () => this.to(address).find((m) => m.subject.includes(subject)), { timeoutMs });
  }
}

/** The first absolute link in a mail's text that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): string {
  const match = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!match) throw new Error(`no link starting with ${prefix} in the mail "${mail.subject}"`);
  return match;
}
