import { randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { jose } from './joseLibrary';
import { SIGNING_ALG, type SigningKeys } from './signingKeys';

/**
 * Access tokens are JWTs per RFC 9068: `typ: at+jwt`, issuer = AUTH_URL, audience = the one
 * resource they were issued for (`${MCP_URL}/tools`), client_id = the client. The subject is
 * the client itself for M2M tokens; for a person's token it is the user id, and `sid` names the
 * token chain (so revoking the chain stops the token).
 */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface IssueAccessTokenInput {
  issuer: string;
  audience: string;
  clientId: string;
  scope: string;
  ttlSeconds: number;
  /** The app's signing keys (the newest signs). */
  signingKeys: SigningKeys;
  now: Date;
  /** A person's token: the user id and the token chain. Absent for M2M tokens. */
  user?: { userId: string; chainId: string };
}

export async function issueAccessToken(input: IssueAccessTokenInput): Promise<{ token: string; expiresIn: number; jti: string }> {
  const signer = await input.signingKeys.signer(input.now);
  const { SignJWT } = await jose();
  const iat = Math.floor(input.now.getTime() / 1000);
  const jti = randomUUID();
  const claims: Record<string, string> = { client_id: input.clientId, scope: input.scope };
  if (input.user) claims.sid = input.user.chainId;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: signer.alg, typ: ACCESS_TOKEN_TYP, kid: signer.kid })
    .setIssuer(input.issuer)
    .setAudience(input.audience)
    .setSubject(input.user ? input.user.userId : input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .setJti(jti)
    .sign(signer.key);
  return { token, expiresIn: input.ttlSeconds, jti };
}

export interface VerifiedAccessToken {
  clientId: string;
  /** Set for a person's token: who it acts for and the chain it belongs to. */
  user: { userId: string; chainId: string } | null;
  scopes: string[];
  jti: string;
  expiresAt: number;
}

export type AccessTokenVerdict = { ok: true; token: VerifiedAccessToken } | { ok: false; reason: string };

/**
 * Checks signature (known, still-accepted kid; ES256 only, so `alg: none` and HMAC tricks
 * fail), `typ`, `iss`, an audience that is exactly the expected string, `exp`, and the
 * RFC 9068 claims. Scope and client revocation are the caller's next checks.
 */
export async function verifyAccessToken(
  token: string,
  opts: { issuer: string; audience: string; signingKeys: SigningKeys; now: Date },
): Promise<AccessTokenVerdict> {
  const { decodeProtectedHeader, jwtVerify } = await jose();
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    kid = header.kid;
    if (header.alg !== SIGNING_ALG) return { ok: false, reason: 'unsupported alg' };
  } catch {
    return { ok: false, reason: 'not a JWS' };
  }
  if (!kid) return { ok: false, reason: 'no kid' };
  const key = await opts.signingKeys.verificationKey(kid, opts.now);
  if (!key) return { ok: false, reason: 'unknown or retired kid' };
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALG],
      typ: ACCESS_TOKEN_TYP,
      issuer: opts.issuer,
      audience: opts.audience,
      requiredClaims: ['iss', 'aud', 'sub', 'exp', 'iat', 'jti', 'client_id', 'scope'],
      currentDate: opts.now,
      clockTolerance: 5,
    }));
  } catch (err) {
    return { ok: false, reason: (err as { code?: string }).code ?? 'invalid' };
  }
  if (payload.aud !== opts.audience) return { ok: false, reason: 'audience must be exactly the resource' };
  if (typeof payload.client_id !== 'string' || typeof payload.sub !== 'string' || typeof payload.scope !== 'string') {
    return { ok: false, reason: 'bad claims' };
  }
  let user: VerifiedAccessToken['user'] = null;
  if (payload.client_id !== payload.sub) {
    // A person's token must name its chain; an M2M token's subject is its client.
    if (typeof payload.sid !== 'string' || !payload.sub.startsWith('usr_')) return { ok: false, reason: 'bad claims' };
    user = { userId: payload.sub, chainId: payload.sid };
  }
  return {
    ok: true,
    token: { clientId: payload.client_id, user, scopes: payload.scope.split(' ').filter(Boolean), jti: String(payload.jti), expiresAt: payload.exp! },
  };
}
