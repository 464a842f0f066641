import { checkAssertion } from '../../core/users/passkeyCeremonies';
import { CHALLENGE_TTL_MS, challengeHash, challengeLive, hostAllowsPasskeys, newChallenge, passkeyNameOf, relyingPartyOf } from '../../core/users/passkeys';
import { SoftAuthenticator } from '../support/softAuthenticator';
import { TestClock } from '../support/testClock';

describe('passkey rules', () => {
  test('the relying party is AUTH_URL: its host name and origin; an IP address carries no passkeys', () => {
    expect(relyingPartyOf('https://console.example.com')).toEqual({
      id: 'console.example.com',
      name: 'Talent platform',
      origin: 'https://console.example.com',
    });
    expect(relyingPartyOf('http://localhost:8080')).toEqual({ id: 'localhost', name: 'Talent platform', origin: 'http://localhost:8080' });
    expect(hostAllowsPasskeys('http://localhost:8080')).toBe(true);
    expect(hostAllowsPasskeys('https://console.example.com')).toBe(true);
    expect(hostAllowsPasskeys('http://127.0.0.1:8080')).toBe(false);
    expect(hostAllowsPasskeys('http://[::1]:8080')).toBe(false);
  });

  test('a name is trimmed, its spaces collapsed, at most 64 characters, without control characters; empty is numbered', () => {
    expect(passkeyNameOf('  Work   laptop ', 1)).toEqual({ ok: true, name: 'Work laptop' });
    expect(passkeyNameOf('', 3)).toEqual({ ok: true, name: 'Passkey 3' });
    expect(passkeyNameOf(undefined, 1)).toEqual({ ok: true, name: 'Passkey 1' });
    expect(passkeyNameOf('é'.repeat(64), 1)).toEqual({ ok: true, name: 'é'.repeat(64) });
    expect(passkeyNameOf('x'.repeat(65), 1)).toEqual({ ok: false, message: 'Use at most 64 characters for the name.' });
    expect(passkeyNameOf('Phone\u0007', 1)).toEqual({ ok: false, message: 'The name may not hold control characters.' });
  });

  test('a challenge is random, stored only as its hash, and lives five minutes on the clock', () => {
    const clock = new TestClock(Date.parse('2026-11-28T10:00:00Z'));
    const issued = newChallenge(new Date(clock.now()));
    expect(issued.value).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(issued.hash).toBe(challengeHash(issued.value));
    expect(issued.hash).not.toContain(issued.value);
    expect(newChallenge(new Date(clock.now())).value).not.toBe(issued.value);
    expect(issued.expiresAt.getTime() - clock.now()).toBe(CHALLENGE_TTL_MS);
    clock.advance(CHALLENGE_TTL_MS - 1);
    expect(challengeLive(issued.expiresAt, new Date(clock.now()))).toBe(true);
    clock.advance(1);
    expect(challengeLive(issued.expiresAt, new Date(clock.now()))).toBe(false);
  });
});

describe('a passkey sign-in checks the signature counter', () => {
  const rp = relyingPartyOf('http://localhost:8080');
  const claimed = async () => true;

  async function signInWith(authenticator: SoftAuthenticator, storedCount: number, presentedCount: number) {
    authenticator.signCount = presentedCount;
    const stored = { credentialId: authenticator.id, publicKey: authenticator.publicKey, signCount: storedCount, transports: ['internal'] };
    return checkAssertion(rp, stored, authenticator.assert('Y2hhbGxlbmdl', rp.origin) as never, claimed);
  }

  test('a counter that grew is accepted and answered', async () => {
    expect(await signInWith(new SoftAuthenticator(), 5, 6)).toEqual({ ok: true, newCount: 6 });
  });

  test('a counter that did not grow (a cloned authenticator) is refused', async () => {
    const authenticator = new SoftAuthenticator();
    expect(await signInWith(authenticator, 5, 5)).toEqual({ ok: false });
    expect(await signInWith(authenticator, 5, 3)).toEqual({ ok: false });
  });

  test('an authenticator that keeps no counter (always 0) is accepted', async () => {
    expect(await signInWith(new SoftAuthenticator(), 0, 0)).toEqual({ ok: true, newCount: 0 });
  });

  test('another origin, another RP ID, a claimed challenge, no user verification or another key are refused', async () => {
    const authenticator = new SoftAuthenticator();
    const stored = { credentialId: authenticator.id, publicKey: authenticator.publicKey, signCount: 0, transports: [] };
    const answer = (origin: string, rpId?: string) => authenticator.assert('Y2hhbGxlbmdl', origin, rpId) as never;
    expect(await checkAssertion(rp, stored, answer(rp.origin), claimed)).toEqual({ ok: true, newCount: 0 });
    expect(await checkAssertion(rp, stored, answer('http://localhost:9999'), claimed)).toEqual({ ok: false });
    expect(await checkAssertion(rp, stored, answer(rp.origin, 'example.com'), claimed)).toEqual({ ok: false });
    expect(await checkAssertion(rp, stored, answer(rp.origin), async () => false)).toEqual({ ok: false });
    const unverified = new SoftAuthenticator({ userVerified: false });
    const storedUnverified = { ...stored, credentialId: unverified.id, publicKey: unverified.publicKey };
    expect(await checkAssertion(rp, storedUnverified, unverified.assert('Y2hhbGxlbmdl', rp.origin) as never, claimed)).toEqual({ ok: false });
    const other = new SoftAuthenticator();
    expect(await checkAssertion(rp, { ...stored, publicKey: other.publicKey }, answer(rp.origin), claimed)).toEqual({ ok: false });
  });
});
