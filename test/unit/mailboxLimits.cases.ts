import { withinMailboxLimits } from '../../core/mailboxLimits';

test('at most 64 octets before the @ and 255 after it, counted in octets', () => {
  const local = (n: number) => 'a'.repeat(n);
  const domain = (n: number) => `${'d'.repeat(n - 4)}.com`;
  expect(withinMailboxLimits(`${local(64)}@${domain(255)}`)).toBe(true);
  expect(withinMailboxLimits(`${local(65)}@example.com`)).toBe(false);
  expect(withinMailboxLimits(`a@${domain(256)}`)).toBe(false);
  // 32 two-octet characters are 64 octets; one more is over.
  expect(withinMailboxLimits(`${'é'.repeat(32)}@example.com`)).toBe(true);
  expect(withinMailboxLimits(`${'é'.repeat(32)}a@example.com`)).toBe(false);
});

test('an address needs something on both sides of its last @', () => {
  expect(withinMailboxLimits('@example.com')).toBe(false);
  expect(withinMailboxLimits('someone@')).toBe(false);
  expect(withinMailboxLimits('someone')).toBe(false);
  expect(withinMailboxLimits('"a@b"@example.com')).toBe(true);
});
