import type { Config } from '../../core/config';
import { invitationMail } from '../../core/mail/mailMessages';
import { deliverDueMail, queueMail } from '../../core/mail/mailOutbox';
import { smtpTransport } from '../../core/mail/mailTransport';
import { Mailbox } from '../support/mailbox';
import { uniqueEmail } from '../support/signInApi';
import { testConfig } from '../support/testConfig';
import { openTestStore, type TestStore } from '../support/testStore';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

// The outbox against a real SMTP receiver: a mail waits through an outage and arrives once.
let config: Config;
let mailbox: Mailbox;
let store: TestStore;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  config = testConfig({ SMTP_URL: mailbox.smtpUrl, MAIL_RETRY_MAX_DELAY_MS: '200' });
  store = await openTestStore(config);
});
afterAll(async () => {
  await mailbox.stop();
  await store.close();
});

test('a mail queued while the mail server is down is delivered once after it returns, and the stored entry holds no link', async () => {
  const to = uniqueEmail('outage');
  const link = `${config.authUrl}/api/oauth/setup?token=ust_secretlinkvalue`;
  const transport = smtpTransport(config)!;
  await mailbox.pause();
  await queueMail(
    store.stores,
    purposeKeysOf(config),
    to,
    invitationMail({ organization: 'Acme', inviter: 'admin@example.com', link, expiresAt: new Date() }),
    new Date(),
  );
  const [stored] = await store.stores.mail.outboxMailTo(to);
  expect(stored.kind).toBe('invitation');
  expect(JSON.stringify(stored)).not.toContain('secretlinkvalue');

  // Down: the attempt fails and the entry waits for its next attempt.
  expect(await deliverDueMail(store.stores, config, purposeKeysOf(config), transport, () => new Date())).toMatchObject({ sent: 0, failed: 1 });
  const [failed] = await store.stores.mail.outboxMailTo(to);
  expect(failed).toMatchObject({ sentAt: null, attempts: 1 });
  expect(failed.lastError).toEqual(expect.any(String));
  expect(failed.dueAt.getTime()).toBeGreaterThan(failed.createdAt.getTime());

  await mailbox.resume();
  const later = () => new Date(Date.now() + 60_000);
  expect(await deliverDueMail(store.stores, config, purposeKeysOf(config), transport, later)).toMatchObject({ sent: 1 });
  // Sent is sent: further passes send nothing more.
  expect(await deliverDueMail(store.stores, config, purposeKeysOf(config), transport, later)).toMatchObject({ sent: 0, failed: 0 });
  const mail = await mailbox.waitFor(to, 'You are invited to Acme');
  expect(mailbox.to(to)).toHaveLength(1);
  expect(mail.text).toContain(link);
  expect(mail.html).toContain(link);
  expect(mail.messageId).toBe(`<${stored._id}@127.0.0.1>`);
});
