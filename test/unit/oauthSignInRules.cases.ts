import { createHash } from 'node:crypto';
import { authorizationResponseUrl, checkAuthorizationParams, resolveResource, resolveScope } from '../../core/oauth/authorizationRules';
import { cacheSecondsOf, isMetadataDocumentUrl, validateMetadataDocument } from '../../core/oauth/metadataDocuments';
import { isValidCodeVerifier, isValidS256Challenge, s256, verifierMatches } from '../../core/oauth/pkce';
import { checkRegisteredRedirectUri, isLoopbackHttp, redirectHostOf, redirectUriMatches } from '../../core/oauth/redirectUris';
import { secondsUntilFree, slotIds } from '../../core/users/attemptSlots';
import { codeRefusal, mayReplayRotation } from '../../core/oauth/codeRules';
import { verifyPassword } from '../../core/users/passwords';
import { DecoyPasswordHash } from '../../core/users/signIn';

const TOOLS = 'https://mcp.example.com/tools';

describe('redirect URI matching (RFC 6749 3.1.2, RFC 8252 7.3)', () => {
  test.each([
    [['https://claude.ai/api/mcp/auth_callback'], 'https://claude.ai/api/mcp/auth_callback', true],
    [['https://claude.ai/api/mcp/auth_callback'], 'https://claude.ai/api/mcp/auth_callback/', false],
    [['https://claude.ai/api/mcp/auth_callback'], 'https://claude.ai/api/mcp/auth_callback?x=1', false],
    [['https://claude.ai/api/mcp/auth_callback'], 'https://CLAUDE.ai/api/mcp/auth_callback', false],
    [['https://app.example.com:8443/cb'], 'https://app.example.com:9443/cb', false], // only loopback http ignores the port
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:53682/callback', true],
    [['http://127.0.0.1:33418/callback'], 'http://127.0.0.1:61000/callback', true],
    [['http://[::1]/cb'], 'http://[::1]:4000/cb', true],
    [['http://localhost/cb'], 'http://localhost:4000/cb', true],
    [['http://localhost/cb'], 'http://127.0.0.1:4000/cb', false], // the host name must match
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:4000/other', false],
    [['http://127.0.0.1/callback'], 'http://127.0.0.1:4000/callback?x=1', false],
    [['http://127.0.0.1/callback'], 'https://127.0.0.1:4000/callback', false],
    [['http://127.0.0.1/callback'], 'http://user@127.0.0.1:4000/callback', false],
    [['cursor://anysphere.cursor-retrieval/oauth/callback'], 'cursor://anysphere.cursor-retrieval/oauth/callback', true],
  ])('%j vs %s → %s', (registered, requested, expected) => {
    expect(redirectUriMatches(registered, requested)).toBe(expected);
  });

  test('loopback detection', () => {
    expect(isLoopbackHttp('http://127.0.0.1:1/x')).toBe(true);
    expect(isLoopbackHttp('http://localhost/x')).toBe(true);
    expect(isLoopbackHttp('http://[::1]/x')).toBe(true);
    expect(isLoopbackHttp('http://127.0.0.2/x')).toBe(false);
    expect(isLoopbackHttp('http://localhost.evil.com/x')).toBe(false);
    expect(isLoopbackHttp('https://localhost/x')).toBe(false);
  });

  test('which redirect URIs a client may register', () => {
    expect(checkRegisteredRedirectUri('https://claude.ai/api/mcp/auth_callback', 'web').ok).toBe(true);
    expect(checkRegisteredRedirectUri('http://127.0.0.1/callback', 'web').ok).toBe(true);
    expect(checkRegisteredRedirectUri('http://localhost:33418/', 'native').ok).toBe(true);
    expect(checkRegisteredRedirectUri('http://example.com/cb', 'web').ok).toBe(false);
    expect(checkRegisteredRedirectUri('https://example.com/cb#frag', 'web').ok).toBe(false);
    expect(checkRegisteredRedirectUri('https://u:p@example.com/cb', 'web').ok).toBe(false);
    expect(checkRegisteredRedirectUri('cursor://anysphere.cursor-retrieval/oauth/callback', 'native').ok).toBe(true);
    expect(checkRegisteredRedirectUri('cursor://anysphere.cursor-retrieval/oauth/callback', 'web').ok).toBe(false);
    expect(checkRegisteredRedirectUri('javascript:alert(1)', 'native').ok).toBe(false);
    expect(checkRegisteredRedirectUri('data:text/html,x', 'native').ok).toBe(false);
    expect(checkRegisteredRedirectUri('/relative', 'web').ok).toBe(false);
    expect(checkRegisteredRedirectUri(42, 'web').ok).toBe(false);
  });

  test('the host the consent page shows', () => {
    expect(redirectHostOf('https://claude.ai/api/mcp/auth_callback')).toBe('claude.ai');
    expect(redirectHostOf('http://127.0.0.1:5000/cb')).toBe('127.0.0.1:5000');
  });
});

describe('PKCE S256 (RFC 7636)', () => {
  test('the RFC 7636 appendix B example', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifierMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });
  test('a wrong, short, long or malformed verifier never matches', () => {
    const challenge = createHash('sha256').update('a'.repeat(43)).digest('base64url');
    expect(verifierMatches('a'.repeat(43), challenge)).toBe(true);
    expect(verifierMatches('b'.repeat(43), challenge)).toBe(false);
    expect(verifierMatches('a'.repeat(42), createHash('sha256').update('a'.repeat(42)).digest('base64url'))).toBe(false);
    expect(isValidCodeVerifier('a'.repeat(129))).toBe(false);
    expect(isValidCodeVerifier('a'.repeat(42) + ' ')).toBe(false);
    expect(verifierMatches(undefined, challenge)).toBe(false);
    // plain: the verifier as its own challenge does not pass
    expect(verifierMatches('a'.repeat(43), 'a'.repeat(43))).toBe(false);
  });
  test('an S256 challenge is 43 base64url characters', () => {
    expect(isValidS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
    expect(isValidS256Challenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM=')).toBe(false);
    expect(isValidS256Challenge('short')).toBe(false);
  });
});

describe('authorization request parameters', () => {
  const params = (extra: Record<string, string | string[]> = {}) => {
    const base: Record<string, string | string[]> = {
      response_type: 'code',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 's',
      ...extra,
    };
    return new Map(
      Object.entries(base)
        .filter(([, v]) => v !== '')
        .map(([k, v]) => [k, Array.isArray(v) ? v : [v]]),
    );
  };
  test('defaults: mcp:tools on the tool server', () => {
    expect(checkAuthorizationParams(params(), TOOLS)).toEqual({
      ok: true,
      params: { state: 's', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', scope: 'mcp:tools', resource: TOOLS },
    });
  });
  test.each([
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge_method: '' }, 'invalid_request'],
    [{ code_challenge: '' }, 'invalid_request'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ response_type: '' }, 'invalid_request'],
    [{ scope: 'mcp:tools admin' }, 'invalid_scope'],
    [{ resource: 'https://mcp.example.com/other' }, 'invalid_target'],
    [{ resource: [TOOLS, TOOLS] }, 'invalid_target'],
    [{ state: ['a', 'b'] }, 'invalid_request'],
    [{ response_mode: 'fragment' }, 'invalid_request'],
    [{ request_uri: 'urn:x' }, 'invalid_request'],
  ])('%j → %s', (extra, error) => {
    const verdict = checkAuthorizationParams(params(extra), TOOLS);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.error).toBe(error);
  });
  test('resource and scope rules', () => {
    expect(resolveResource(undefined, TOOLS)).toBe(TOOLS);
    expect(resolveResource(`${TOOLS}/`, TOOLS)).toBe(TOOLS);
    expect(resolveResource('https://mcp.example.com/', TOOLS)).toBeNull();
    expect(resolveResource(`${TOOLS}//`, TOOLS)).toBeNull();
    expect(resolveScope(undefined)).toBe('mcp:tools');
    expect(resolveScope('mcp:tools offline_access')).toBe('mcp:tools');
    expect(resolveScope('openid')).toBeNull();
  });
  test('the response carries state and iss, and keeps the redirect URI query', () => {
    const url = new URL(authorizationResponseUrl('https://app.example.com/cb?tenant=1', 'https://auth.example.com', 'st&x', { code: 'mac_1' }));
    expect(url.searchParams.get('tenant')).toBe('1');
    expect(url.searchParams.get('code')).toBe('mac_1');
    expect(url.searchParams.get('state')).toBe('st&x');
    expect(url.searchParams.get('iss')).toBe('https://auth.example.com');
    const err = new URL(authorizationResponseUrl('cursor://x/cb', 'https://auth.example.com', null, { error: 'access_denied' }));
    expect(err.searchParams.get('error')).toBe('access_denied');
    expect(err.searchParams.has('state')).toBe(false);
  });
});

describe('Client ID Metadata Documents', () => {
  const URL_ = 'https://claude.ai/oauth/mcp-oauth-client-metadata';
  const doc = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      client_id: URL_,
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...extra,
    });

  test('which client ids are document URLs', () => {
    expect(isMetadataDocumentUrl(URL_)).toBe(true);
    expect(isMetadataDocumentUrl('https://example.com')).toBe(false);
    expect(isMetadataDocumentUrl('https://example.com/')).toBe(false);
    expect(isMetadataDocumentUrl('http://example.com/client')).toBe(false);
    expect(isMetadataDocumentUrl('https://example.com/a/../client')).toBe(false);
    expect(isMetadataDocumentUrl('https://example.com/./client')).toBe(false);
    expect(isMetadataDocumentUrl('https://example.com/client#x')).toBe(false);
    expect(isMetadataDocumentUrl('https://u:p@example.com/client')).toBe(false);
    expect(isMetadataDocumentUrl('pcl_abc')).toBe(false);
  });

  test('a good document', () => {
    const verdict = validateMetadataDocument(URL_, 'application/json; charset=utf-8', doc());
    expect(verdict).toEqual({
      ok: true,
      client: {
        clientId: URL_,
        clientName: 'Claude',
        redirectUris: ['https://claude.ai/api/mcp/auth_callback'],
        grantTypes: ['authorization_code', 'refresh_token'],
        applicationType: 'web',
      },
    });
  });

  test.each([
    ['another client_id', doc({ client_id: 'https://evil.example.com/client' }), 'application/json'],
    ['no client_name', doc({ client_name: undefined }), 'application/json'],
    ['no redirect URIs', doc({ redirect_uris: [] }), 'application/json'],
    ['an http redirect', doc({ redirect_uris: ['http://evil.example.com/cb'] }), 'application/json'],
    ['a client secret', doc({ client_secret: 'x' }), 'application/json'],
    ['a secret-based auth method', doc({ token_endpoint_auth_method: 'client_secret_basic' }), 'application/json'],
    ['no authorization_code grant', doc({ grant_types: ['client_credentials'] }), 'application/json'],
    ['not JSON', '<html>', 'application/json'],
    ['an array', '[]', 'application/json'],
    ['served as HTML', doc(), 'text/html'],
  ])('refused: %s', (_name, body, type) => {
    expect(validateMetadataDocument(URL_, type, body).ok).toBe(false);
  });

  test('cache lifetime follows max-age within [60 s, 24 h]', () => {
    expect(cacheSecondsOf('')).toBe(300);
    expect(cacheSecondsOf('public, max-age=3600')).toBe(3600);
    expect(cacheSecondsOf('max-age=5')).toBe(60);
    expect(cacheSecondsOf('max-age=999999')).toBe(86400);
    expect(cacheSecondsOf('no-store')).toBe(60);
  });
});

describe('attempt slots', () => {
  test('slot ids and the wait until one frees', () => {
    expect(slotIds('signin:acct:x', 3)).toEqual(['signin:acct:x:0', 'signin:acct:x:1', 'signin:acct:x:2']);
    const now = new Date(1_000_000);
    expect(secondsUntilFree([new Date(1_030_500), new Date(1_010_100)], now)).toBe(11);
    expect(secondsUntilFree([new Date(1_000_000)], now)).toBe(1);
  });
});

describe('authorization code checks at the token endpoint', () => {
  const now = new Date('2026-01-01T00:00:30Z');
  const verifier = 'v'.repeat(43);
  const code = {
    clientId: 'pcl_a',
    redirectUri: 'http://127.0.0.1:4000/cb',
    codeChallenge: s256(verifier),
    resource: TOOLS,
    expiresAt: new Date('2026-01-01T00:01:00Z'),
  };
  const presented = { clientId: 'pcl_a', redirectUri: 'http://127.0.0.1:4000/cb', codeVerifier: verifier, resource: undefined };
  test.each([
    [{}, null],
    [{ resource: `${TOOLS}/` }, null],
    [{ clientId: 'pcl_b' }, 'other_client'],
    // The exact redirect URI of the request: another loopback port is not the same request.
    [{ redirectUri: 'http://127.0.0.1:4001/cb' }, 'redirect_uri'],
    [{ redirectUri: undefined }, 'redirect_uri'],
    [{ resource: 'https://other.example.com/' }, 'resource'],
    [{ codeVerifier: 'w'.repeat(43) }, 'verifier'],
    [{ codeVerifier: undefined }, 'verifier'],
  ])('%j → %s', (override, expected) => {
    expect(codeRefusal(code, { ...presented, ...override }, TOOLS, now)).toBe(expected);
  });
  test('60 s: usable until it expires, not at or after', () => {
    expect(codeRefusal(code, presented, TOOLS, new Date('2026-01-01T00:00:59.999Z'))).toBeNull();
    expect(codeRefusal(code, presented, TOOLS, new Date('2026-01-01T00:01:00Z'))).toBe('expired');
  });
});

describe('refresh retry window', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  test('the same pair only while the window lasts, the pair is kept and the chain lives', () => {
    expect(mayReplayRotation({ sealedPair: 'v1.x', retryUntil: new Date(now.getTime() + 1) }, true, now)).toBe(true);
    expect(mayReplayRotation({ sealedPair: 'v1.x', retryUntil: now }, true, now)).toBe(false);
    expect(mayReplayRotation({ sealedPair: 'v1.x', retryUntil: new Date(now.getTime() + 5000) }, false, now)).toBe(false);
    // Confidential clients keep no pair: every reuse revokes.
    expect(mayReplayRotation({ sealedPair: null, retryUntil: new Date(now.getTime() + 5000) }, true, now)).toBe(false);
    expect(mayReplayRotation(null, true, now)).toBe(false);
  });
});

describe('the decoy password hash of an app', () => {
  test('computed once per app, at the configured cost, and a typed password does not match it', async () => {
    const decoy = new DecoyPasswordHash(10);
    const first = decoy.value();
    expect(decoy.value()).toBe(first);
    expect((await first).split('$').slice(0, 2)).toEqual(['scrypt', '10']);
    expect(await verifyPassword('correct horse battery staple', await first)).toBe(false);
    expect(await new DecoyPasswordHash(10).value()).not.toBe(await first);
  });
});
