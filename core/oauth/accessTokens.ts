import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { SIGNING_ALG, currentSigner, verificationKey } from './signingKeys';

/**
 * Access tokens are JWTs per RFC 9068: `typ: at+jwt`, issuer = AUTH_URL, audience = the one
 * resource they were issued for (`${MCP_URL}/tools`), subject and client_id = the client.
 */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface IssueAccessTokenInput {
  issuer: string;
  audience: string;
  clientId: string;
  scope: string;
  ttlSeconds: number;
  secretsKey: Buffer;
  now?: Date;
}

export async function issueAccessToken(input: IssueAccessTokenInput): Promise<{ token: string; expiresIn: number; jti: string }> {
  const signer = await currentSigner(input.secretsKey);
  const iat = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const jti = randomUUID();
  const token = await new SignJWT({ client_id: input.clientId, scope: input.scope })
    .setProtectedHeader({ alg: signer.alg, typ: ACCESS_TOKEN_TYP, kid: signer.kid })
    .setIssuer(input.issuer)
    .setAudience(input.audience)
    .setSubject(input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .setJti(jti)
    .sign(signer.key);
  return { token, expiresIn: input.ttlSeconds, jti };
}

export interface VerifiedAccessToken {
  clientId: string;
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
export async function verifyAccessToken(token: string, opts: { issuer: string; audience: string; accessTokenTtlSeconds: number; now?: Date }): Promise<AccessTokenVerdict> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    kid = header.kid;
    if (header.alg !== SIGNING_ALG) return { ok: false, reason: 'unsupported alg' };
  } catch {
    return { ok: false, reason: 'not a JWS' };
  }
  if (!kid) return { ok: false, reason: 'no kid' };
  const key = await verificationKey(kid, opts.accessTokenTtlSeconds, opts.now);
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
  if (typeof payload.client_id !== 'string' || payload.client_id !== payload.sub || typeof payload.scope !== 'string') {
    return { ok: false, reason: 'bad claims' };
  }
  return {
    ok: true,
    token: { clientId: payload.client_id, scopes: payload.scope.split(' ').filter(Boolean), jti: String(payload.jti), expiresAt: payload.exp! },
  };
}
