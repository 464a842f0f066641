import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { addPasskey, passkeyRegistrationOptions } from '../../core/users/passkeyCeremonies';
import { relyingPartyOf } from '../../core/users/passkeys';
import { findActiveUser } from '../../core/users/users';
import { fileStores } from './testStore';

/**
 * A WebAuthn authenticator in the test process (a P-256 key, `none` attestation), for the paths a
 * browser is not needed for: the counter rules, and driving the console's passkey writes over HTTP.
 * The browser test uses chromium's own virtual authenticator instead.
 */
const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface SoftAuthenticatorOptions {
  /** Whether the authenticator says it verified its user (screen lock, PIN). */
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  signCount = 0;
  userHandle: string | null = null;

  constructor(private readonly opts: SoftAuthenticatorOptions = {}) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicJwk = pair.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  /** The COSE public key, base64url (as the store keeps it). */
  get publicKey(): string {
    return b64url(this.cosePublicKey());
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private cosePublicKey(): Uint8Array {
    const key = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(this.publicJwk.x, 'base64url')],
      [-3, Buffer.from(this.publicJwk.y, 'base64url')],
    ]);
    return isoCBOR.encode(key);
  }

  private flags(extra = 0): number {
    return FLAG_UP | (this.opts.userVerified === false ? 0 : FLAG_UV) | extra;
  }

  private counterBytes(): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(this.signCount);
    return b;
  }

  /** The answer to registration options (`challenge` from them), as the browser's JSON. */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }, origin: string): Record<string, unknown> {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    this.userHandle = options.user.id;
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      createHash('sha256').update(rpId).digest(),
      Buffer.from([this.flags(FLAG_AT)]),
      this.counterBytes(),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      Buffer.from(this.cosePublicKey()),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** The answer to sign-in options, signed with the counter at `signCount` (set it first to play a clone). */
  assert(challenge: string, origin: string, rpId = new URL(origin).hostname): Record<string, unknown> {
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin, crossOrigin: false }));
    const authenticatorData = Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([this.flags()]), this.counterBytes()]);
    const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
    };
  }
}

/** A passkey of `userId` made through the registration ceremony with a new software authenticator, for tests that need one to exist. */
export async function enrolSoftPasskey(authUrl: string, userId: string, name: string): Promise<{ passkeyId: string; authenticator: SoftAuthenticator }> {
  const rp = relyingPartyOf(authUrl);
  const user = await findActiveUser(fileStores(), userId);
  if (!user) throw new Error(`no active person ${userId}`);
  const authenticator = new SoftAuthenticator();
  const options = await passkeyRegistrationOptions(fileStores(), rp, user, new Date());
  const added = await addPasskey(fileStores(), rp, user, JSON.stringify(authenticator.register(options, rp.origin)), name, new Date());
  if (!added.ok) throw new Error(`the passkey was refused: ${added.message}`);
  return { passkeyId: added.passkey._id, authenticator };
}
