import { invitationMail, passwordResetMail, securityNoticeMail } from '../../core/mail/mailMessages';
import { retryDelayMs } from '../../core/mail/mailOutbox';

test('every message has one subject, a text and an HTML part that say the same, and its link in both', () => {
  const link = 'https://auth.example.com/api/oauth/setup?token=ust_abc&x=<y>';
  const { kind, message } = invitationMail({ organization: 'Acme & Co', inviter: 'ann@example.com', link, expiresAt: new Date('2026-05-01T10:00:00Z') });
  expect(kind).toBe('invitation');
  expect(message.subject).toBe('You are invited to Acme & Co on the talent platform');
  expect(message.text).toContain(link);
  expect(message.text).toContain('2026-05-01 10:00 UTC');
  // HTML escapes what it shows: the organization's name and the link.
  expect(message.html).toContain('Acme &amp; Co');
  expect(message.html).toContain('href="https://auth.example.com/api/oauth/setup?token=ust_abc&amp;x=&lt;y&gt;"');
  expect(message.html).not.toContain('<y>');
  const reset = passwordResetMail({ link, expiresAt: new Date('2026-05-01T11:00:00Z') }).message;
  expect(reset.text).toContain('until 2026-05-01 11:00 UTC');
  const notice = securityNoticeMail('api_key_created', {
    at: new Date('2026-05-01T12:00:00Z'),
    what: 'ann@example.com created the API key "CI"',
    consoleUrl: 'https://x/console/keys',
  });
  expect(notice.message.text).toContain('ann@example.com created the API key "CI" (2026-05-01 12:00 UTC).');
});

test('a failed mail waits 1 s, then twice as long after each failure, up to the largest wait', () => {
  expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 300_000))).toEqual([1000, 2000, 4000, 8000]);
  expect(retryDelayMs(20, 300_000)).toBe(300_000);
  expect(retryDelayMs(100, 5000)).toBe(5000);
});
