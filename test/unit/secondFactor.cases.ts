import { authenticator } from 'otplib';
import { checkTotpCode, newRecoveryCodes, newTotpSecret, RECOVERY_CODE_COUNT, recoveryCodeHash, totpUri } from '../../core/users/secondFactor';
import { TestClock } from '../support/testClock';

const at = (clock: TestClock) => new Date(clock.now());
const codeAt = async (secret: string, when: Date) => authenticator.clone({ epoch: when.getTime() }).generate(secret);

test('a code is accepted in its 30-second step and one step either side, and not beyond', async () => {
  const secret = newTotpSecret();
  const clock = new TestClock(Date.parse('2026-04-01T12:00:00Z'));
  const code = await codeAt(secret, at(clock));
  expect(await checkTotpCode(secret, code, at(clock), null)).toMatchObject({ ok: true });
  clock.advance(30_000);
  expect((await checkTotpCode(secret, code, at(clock), null)).ok).toBe(true);
  clock.advance(30_000);
  expect((await checkTotpCode(secret, code, at(clock), null)).ok).toBe(false);
  // A phone a step ahead: its next code is accepted now, two steps ahead is not.
  const back = new TestClock(Date.parse('2026-04-01T12:00:00Z'));
  expect((await checkTotpCode(secret, await codeAt(secret, new Date(back.now() + 30_000)), at(back), null)).ok).toBe(true);
  expect((await checkTotpCode(secret, await codeAt(secret, new Date(back.now() + 60_000)), at(back), null)).ok).toBe(false);
});

test('a code works once: after it is accepted, the same step and earlier ones are refused', async () => {
  const secret = newTotpSecret();
  const clock = new TestClock(Date.parse('2026-04-01T12:00:10Z'));
  const code = await codeAt(secret, at(clock));
  const first = await checkTotpCode(secret, code, at(clock), null);
  if (!first.ok) throw new Error('the first use was refused');
  expect(first.timeStep).toBe(Math.floor(clock.now() / 30_000));
  expect((await checkTotpCode(secret, code, at(clock), first.timeStep)).ok).toBe(false);
  clock.advance(30_000);
  expect((await checkTotpCode(secret, await codeAt(secret, at(clock)), at(clock), first.timeStep)).ok).toBe(true);
  for (const bad of ['', '12345', '1234567', 'abcdef', null, 123456]) expect((await checkTotpCode(secret, bad, at(clock), null)).ok).toBe(false);
});

test('ten recovery codes, distinct, stored only as hashes that ignore case and surrounding spaces', () => {
  const { codes, hashes } = newRecoveryCodes();
  expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
  expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
  for (const [i, code] of codes.entries()) {
    expect(code).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
    expect(hashes[i]).not.toContain(code.replace('-', ''));
    expect(recoveryCodeHash(`  ${code.toUpperCase()} `)).toBe(hashes[i]);
  }
  expect(recoveryCodeHash('not a code')).toBeNull();
});

// The QR code the console draws of this URI: test/unit/secondFactors.test.ts.
test('the enrolment URI names the account and the issuer', () => {
  const uri = totpUri(newTotpSecret(), 'ann@example.com');
  expect(uri).toMatch(/^otpauth:\/\/totp\/Talent%20platform:ann%40example\.com\?.*secret=/);
});
