import { sha256Hex } from '../../core/crypto/hash';
import { issueLink, LINK_LIFETIMES_MS, linkHashOf, linkOpens } from '../../core/users/oneTimeLinks';
import { TestClock } from '../support/testClock';

test('an invitation works 7 days, a setup link 24 hours, a reset link 1 hour, each until the instant it expires', () => {
  for (const [purpose, lifetime] of [
    ['invitation', 7 * 24 * 3600_000],
    ['setup', 24 * 3600_000],
    ['reset', 3600_000],
  ] as const) {
    const clock = new TestClock(Date.parse('2026-03-01T09:00:00Z'));
    const at = () => new Date(clock.now());
    expect(LINK_LIFETIMES_MS[purpose]).toBe(lifetime);
    const link = issueLink(purpose, at());
    expect(link.expiresAt.getTime() - clock.now()).toBe(lifetime);
    const stored = { hash: link.hash, expiresAt: link.expiresAt };
    expect(linkOpens(stored, link.token, at())).toBe(true);
    clock.advance(lifetime - 1);
    expect(linkOpens(stored, link.token, at())).toBe(true);
    clock.advance(1);
    expect(linkOpens(stored, link.token, at())).toBe(false);
  }
});

test('only the hash is kept; a used link, another token or a malformed one does not open', () => {
  const now = new Date('2026-03-01T09:00:00Z');
  const link = issueLink('reset', now);
  expect(link.hash).toBe(sha256Hex(link.token));
  expect(link.hash).not.toContain(link.token.slice(4));
  expect(linkHashOf(link.token)).toBe(link.hash);
  const stored = { hash: link.hash, expiresAt: link.expiresAt };
  expect(linkOpens({ ...stored, used: true }, link.token, now)).toBe(false);
  expect(linkOpens(stored, issueLink('reset', now).token, now)).toBe(false);
  for (const bad of ['', 'ust_short', `${link.token}x`, link.hash, null, 42]) expect(linkOpens(stored, bad, now)).toBe(false);
  expect(linkOpens({ hash: null, expiresAt: null }, link.token, now)).toBe(false);
});
