import { isIP } from 'node:net';
import { sha256Hex } from '../crypto/hash';
import { randomBase62 } from '../ids';

/**
 * The rules of passkeys (WebAuthn): who the relying party is, what a passkey may be called, and
 * the challenges of the two ceremonies. A challenge is random, lives CHALLENGE_TTL_MS, is stored
 * only as its SHA-256 beside what it is bound to (the person adding a passkey, or the browser
 * signing in) and is claimed once: the store deletes it as it is claimed (passkeysStore.ts).
 * The signature counter is checked by @simplewebauthn/server (passkeyCeremonies.ts).
 */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const PASSKEY_NAME_MAX = 64;
/** More than anyone keeps (a phone, a laptop, a security key or two), fewer than a flood. */
export const PASSKEYS_PER_PERSON = 20;
export const RELYING_PARTY_NAME = 'Talent platform';

export interface RelyingParty {
  /** The host name of AUTH_URL: passkeys are bound to it. */
  id: string;
  name: string;
  /** The origin the browser reports for the console and sign-in pages. */
  origin: string;
}

export function relyingPartyOf(authUrl: string): RelyingParty {
  const url = new URL(authUrl);
  return { id: url.hostname, name: RELYING_PARTY_NAME, origin: url.origin };
}

/**
 * Whether browsers offer passkeys on AUTH_URL: WebAuthn binds a passkey to a host name, and
 * browsers refuse an IP address as one (http://127.0.0.1 has no passkeys; http://localhost has).
 */
export function hostAllowsPasskeys(authUrl: string): boolean {
  const host = new URL(authUrl).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0;
}

export type PasskeyNameCheck = { ok: true; name: string } | { ok: false; message: string };

/**
 * The name a person gives a passkey ("Work laptop"): spaces collapsed, at most PASSKEY_NAME_MAX
 * characters, no control characters; left empty it is "Passkey N", N counting the person's passkeys.
 */
export function passkeyNameOf(typed: unknown, ordinal: number): PasskeyNameCheck {
  const name = typeof typed === 'string' ? typed.replace(/\s+/g, ' ').trim() : '';
  if (name === '') return { ok: true, name: `Passkey ${ordinal}` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return { ok: false, message: 'The name may not hold control characters.' };
  if ([...name].length > PASSKEY_NAME_MAX) return { ok: false, message: `Use at most ${PASSKEY_NAME_MAX} characters for the name.` };
  return { ok: true, name };
}

export interface NewChallenge {
  /** Sent to the browser (base64url), never stored. */
  value: string;
  /** What the store keeps. */
  hash: string;
  expiresAt: Date;
}

export function newChallenge(now: Date): NewChallenge {
  const value = Buffer.from(randomBase62(43)).toString('base64url');
  return { value, hash: challengeHash(value), expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) };
}

export function challengeHash(value: string): string {
  return sha256Hex(`webauthn-challenge:${value}`);
}

/** Whether a challenge that expires at `expiresAt` may still be claimed at `now`. */
export function challengeLive(expiresAt: Date, now: Date): boolean {
  return now.getTime() < expiresAt.getTime();
}
