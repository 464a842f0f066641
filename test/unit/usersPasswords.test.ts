import { hashPassword, passwordProblem, verifyPassword } from '../../core/users/passwords';
import { csrfMatches, csrfTokenFor, newSessionValue } from '../../core/users/sessions';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

describe('passwords (scrypt)', () => {
  test('a salted hash that verifies the password only and carries its cost', async () => {
    const a = await hashPassword('correct horse battery staple', 10);
    const b = await hashPassword('correct horse battery staple', 10);
    expect(a).not.toBe(b); // a salt per hash
    expect(a).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toContain('horse');
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', a)).toBe(false);
    expect(await verifyPassword('x', 'not a hash')).toBe(false);
  });
  test('the default cost (N = 2^15) works within the memory limit', async () => {
    const h = await hashPassword('another long password', 15);
    expect(await verifyPassword('another long password', h)).toBe(true);
  });
  test('password rules', () => {
    expect(passwordProblem('short', 'short')).toMatch(/at least 10/);
    expect(passwordProblem('long enough one', 'long enough two')).toMatch(/not the same/);
    expect(passwordProblem('x'.repeat(300), 'x'.repeat(300))).toMatch(/at most/);
    expect(passwordProblem('long enough one', 'long enough one')).toBeNull();
  });
});

describe('CSRF tokens', () => {
  const key = new PurposeKeys(Buffer.alloc(32, 7));
  test('bound to the session value and the key; anything else fails', () => {
    const session = newSessionValue();
    const token = csrfTokenFor(session, key);
    expect(csrfMatches(session, token, key)).toBe(true);
    expect(csrfMatches(newSessionValue(), token, key)).toBe(false);
    expect(csrfMatches(session, token, new PurposeKeys(Buffer.alloc(32, 8)))).toBe(false);
    expect(csrfMatches(session, undefined, key)).toBe(false);
    expect(csrfMatches(undefined, token, key)).toBe(false);
    expect(csrfMatches(session, token.slice(1), key)).toBe(false);
  });
});
