import type { JWK, KeyLike } from 'jose';
import { jose } from './joseLibrary';
import type { Config } from '../config';
import type { PurposeKeys } from '../crypto/purposeKeys';
import { openSecret, sealSecret } from '../crypto/secretBox';
import { newId } from '../ids';
import type { OAuthStores, SigningKeyRecord } from './store';

/**
 * Access-token signing keys (RFC 9068 tokens, ES256). Keys live in the store so every API
 * replica signs and verifies with the same set. Rotation adds a key that takes over signing;
 * the superseded key stays published and accepted for one access-token lifetime (plus a
 * minute of clock skew), so tokens in flight keep working.
 */
export const SIGNING_ALG = 'ES256';
const SKEW_SECONDS = 60;
/** How long a replica keeps signing with the key it loaded: bounded staleness after a rotation. */
const SIGNER_CACHE_MS = 30_000;
/** How long a replica trusts what it read of a key's supersession. */
const VERIFIER_CACHE_MS = 30_000;

export interface Signer {
  kid: string;
  alg: string;
  key: KeyLike | Uint8Array;
}

/** Whether a key may still verify tokens (and be published) at `now`. */
export function isKeyAcceptable(key: { supersededAt: Date | null }, now: Date, accessTokenTtlSeconds: number): boolean {
  if (!key.supersededAt) return true;
  return key.supersededAt.getTime() + (accessTokenTtlSeconds + SKEW_SECONDS) * 1000 > now.getTime();
}

async function createKey(stores: OAuthStores, keys: PurposeKeys, now: Date): Promise<SigningKeyRecord> {
  const { exportJWK, generateKeyPair } = await jose();
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId('jwk');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  const doc: SigningKeyRecord = {
    _id: kid,
    alg: SIGNING_ALG,
    publicJwk,
    privateJwkSealed: sealSecret(keys, JSON.stringify(privateJwk), `oauth-signing-key:${kid}`),
    createdAt: now,
    supersededAt: null,
  };
  await stores.oauth.insertSigningKey(doc);
  return doc;
}

/**
 * Adds a new signing key and supersedes the others. Replicas pick it up within
 * SIGNER_CACHE_MS (the one that rotates through `SigningKeys.rotate`, at once); verifiers find
 * it on first sight of its kid.
 */
export async function rotateSigningKey(stores: OAuthStores, keys: PurposeKeys, now: Date): Promise<{ kid: string; superseded: string[] }> {
  const previous = await stores.oauth.unsupersededSigningKeyIds();
  const created = await createKey(stores, keys, now);
  await stores.oauth.supersedeSigningKeys(previous, now);
  return { kid: created._id, superseded: previous };
}

export interface SigningKeysOptions {
  /** The clock of the caches (milliseconds); tests inject one. */
  clock?: () => number;
}

/**
 * One app's view of the signing keys: the key it signs with (re-read every SIGNER_CACHE_MS)
 * and the public keys it verified with (by kid, re-read every VERIFIER_CACHE_MS). A key's
 * material never changes; its supersession can, but a superseded key stays acceptable for a
 * whole token lifetime, so re-reading it every 30 s is exact enough. Built once per app by the
 * composition root (api/server.ts startApi, or api/app.ts createApp) and passed down.
 */
export class SigningKeys {
  private signerCache: { signer: Signer; loadedAt: number } | undefined;
  private readonly publicKeys = new Map<string, { key: KeyLike | Uint8Array; supersededAt: Date | null; loadedAt: number }>();
  private readonly accessTokenTtlSeconds: number;
  private readonly clock: () => number;

  constructor(
    private readonly stores: OAuthStores,
    config: Pick<Config, 'oauth'>,
    private readonly keys: PurposeKeys,
    options: SigningKeysOptions = {},
  ) {
    this.accessTokenTtlSeconds = config.oauth.accessTokenTtlSeconds;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * The key to sign with: the newest one not superseded. On first use a replica creates one;
   * if two replicas race, both keys are valid and the newest wins from then on.
   */
  async signer(now: Date): Promise<Signer> {
    if (this.signerCache && this.clock() - this.signerCache.loadedAt < SIGNER_CACHE_MS) return this.signerCache.signer;
    let doc = await this.stores.oauth.newestSigningKey();
    doc ??= await createKey(this.stores, this.keys, now);
    const privateJwk = JSON.parse(openSecret(this.keys, doc.privateJwkSealed, `oauth-signing-key:${doc._id}`)) as JWK;
    const signer = { kid: doc._id, alg: doc.alg, key: await (await jose()).importJWK(privateJwk, doc.alg) };
    this.signerCache = { signer, loadedAt: this.clock() };
    return signer;
  }

  /** The verification key for a kid, or null if unknown or past its acceptance window. */
  async verificationKey(kid: string, now: Date): Promise<KeyLike | Uint8Array | null> {
    if (typeof kid !== 'string' || kid.length > 100) return null;
    let entry = this.publicKeys.get(kid);
    if (!entry || this.clock() - entry.loadedAt >= VERIFIER_CACHE_MS) {
      const doc = await this.stores.oauth.findSigningKeyPublicHalf(kid);
      if (!doc) return null;
      entry = { key: entry?.key ?? (await (await jose()).importJWK(doc.publicJwk, doc.alg)), supersededAt: doc.supersededAt, loadedAt: this.clock() };
      this.publicKeys.set(kid, entry);
    }
    return isKeyAcceptable(entry, now, this.accessTokenTtlSeconds) ? entry.key : null;
  }

  /** The published key set (RFC 7517): every key that may still verify a token. */
  async publishedJwks(now: Date): Promise<{ keys: JWK[] }> {
    const docs = await this.stores.oauth.signingKeysNewestFirst();
    return { keys: docs.filter((d) => isKeyAcceptable(d, now, this.accessTokenTtlSeconds)).map((d) => d.publicJwk) };
  }

  /** Rotates (rotateSigningKey); this app signs with the new key at once. */
  async rotate(now: Date): Promise<{ kid: string; superseded: string[] }> {
    const rotated = await rotateSigningKey(this.stores, this.keys, now);
    this.signerCache = undefined;
    return rotated;
  }
}
