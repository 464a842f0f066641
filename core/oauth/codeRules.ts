import { resolveResource } from './authorizationRules';
import { verifierMatches } from './pkce';

/**
 * Pure checks of an authorization code at the token endpoint (RFC 6749 4.1.3, RFC 7636 4.6,
 * RFC 8707): the code must belong to the presenting client, come with the exact redirect URI
 * of the authorization request and a verifier hashing to its challenge, name the same resource
 * if it names one, and be unexpired. Single use is decided in the store (a unique insert).
 */
export interface CodeFacts {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  expiresAt: Date;
}

export interface CodePresentation {
  clientId: string;
  redirectUri: string | undefined;
  codeVerifier: string | undefined;
  resource: string | undefined;
}

export type CodeRefusal = 'other_client' | 'redirect_uri' | 'resource' | 'verifier' | 'expired';

export function codeRefusal(code: CodeFacts, presented: CodePresentation, toolsResource: string, now: Date): CodeRefusal | null {
  if (code.clientId !== presented.clientId) return 'other_client';
  if (presented.redirectUri !== code.redirectUri) return 'redirect_uri';
  if (presented.resource !== undefined && resolveResource(presented.resource, toolsResource) !== code.resource) return 'resource';
  if (!verifierMatches(presented.codeVerifier, code.codeChallenge)) return 'verifier';
  if (code.expiresAt <= now) return 'expired';
  return null;
}

/** Whether a repeated refresh may get the pair its first use got: sealed pair kept, inside the window, chain alive. */
export function mayReplayRotation(rotation: { sealedPair: string | null; retryUntil: Date } | null, chainAlive: boolean, now: Date): boolean {
  return rotation !== null && rotation.sealedPair !== null && rotation.retryUntil > now && chainAlive;
}
