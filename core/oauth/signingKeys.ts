import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';
import { openSecret, sealSecret } from '../crypto/secretBox';
import { newId } from '../ids';
import { SigningKey } from './models';

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

interface SigningKeyDoc {
  _id: string;
  alg: string;
  publicJwk: JWK;
  privateJwkSealed: string;
  createdAt: Date;
  supersededAt: Date | null;
}

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

async function createKey(secretsKey: Buffer, now: Date): Promise<SigningKeyDoc> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId('jwk');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  const doc: SigningKeyDoc = {
    _id: kid,
    alg: SIGNING_ALG,
    publicJwk,
    privateJwkSealed: sealSecret(secretsKey, JSON.stringify(privateJwk), `oauth-signing-key:${kid}`),
    createdAt: now,
    supersededAt: null,
  };
  await SigningKey.create(doc);
  return doc;
}

/**
 * Adds a new signing key and supersedes the others. Replicas pick it up within
 * SIGNER_CACHE_MS; verifiers find it on first sight of its kid.
 */
export async function rotateSigningKey(secretsKey: Buffer, now = new Date()): Promise<{ kid: string; superseded: string[] }> {
  const previous = await SigningKey.find({ supersededAt: null }).lean<SigningKeyDoc[]>();
  const created = await createKey(secretsKey, now);
  await SigningKey.updateMany({ _id: { $in: previous.map((k) => k._id) } }, { $set: { supersededAt: now } });
  signerCache = undefined;
  return { kid: created._id, superseded: previous.map((k) => k._id) };
}

let signerCache: { signer: Signer; loadedAt: number; secretsKey: Buffer } | undefined;

/**
 * The key to sign with: the newest one not superseded. On first use a replica creates one;
 * if two replicas race, both keys are valid and the newest wins from then on.
 */
export async function currentSigner(secretsKey: Buffer, now = new Date()): Promise<Signer> {
  if (signerCache && signerCache.secretsKey === secretsKey && Date.now() - signerCache.loadedAt < SIGNER_CACHE_MS) return signerCache.signer;
  let doc = await SigningKey.findOne({ supersededAt: null }).sort({ createdAt: -1 }).lean<SigningKeyDoc>();
  doc ??= await createKey(secretsKey, now);
  const privateJwk = JSON.parse(openSecret(secretsKey, doc.privateJwkSealed, `oauth-signing-key:${doc._id}`)) as JWK;
  const signer = { kid: doc._id, alg: doc.alg, key: await importJWK(privateJwk, doc.alg) };
  signerCache = { signer, loadedAt: Date.now(), secretsKey };
  return signer;
}

/**
 * Public keys by kid. A key's material never changes; its supersession can, but a superseded
 * key stays acceptable for a whole token lifetime, so re-reading it every 30 s is exact enough.
 */
const publicKeyCache = new Map<string, { key: KeyLike | Uint8Array; supersededAt: Date | null; loadedAt: number }>();
const VERIFIER_CACHE_MS = 30_000;

/** The verification key for a kid, or null if unknown or past its acceptance window. */
export async function verificationKey(kid: string, accessTokenTtlSeconds: number, now = new Date()): Promise<KeyLike | Uint8Array | null> {
  if (typeof kid !== 'string' || kid.length > 100) return null;
  let entry = publicKeyCache.get(kid);
  if (!entry || Date.now() - entry.loadedAt >= VERIFIER_CACHE_MS) {
    const doc = await SigningKey.findById(kid, { alg: 1, publicJwk: 1, supersededAt: 1 }).lean<SigningKeyDoc>();
    if (!doc) return null;
    entry = { key: entry?.key ?? (await importJWK(doc.publicJwk, doc.alg)), supersededAt: doc.supersededAt, loadedAt: Date.now() };
    publicKeyCache.set(kid, entry);
  }
  return isKeyAcceptable(entry, now, accessTokenTtlSeconds) ? entry.key : null;
}

/** The published key set (RFC 7517): every key that may still verify a token. */
export async function publishedJwks(accessTokenTtlSeconds: number, now = new Date()): Promise<{ keys: JWK[] }> {
  const docs = await SigningKey.find({}).sort({ createdAt: -1 }).lean<SigningKeyDoc[]>();
  return { keys: docs.filter((d) => isKeyAcceptable(d, now, accessTokenTtlSeconds)).map((d) => d.publicJwk) };
}
