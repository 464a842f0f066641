import { z } from 'zod';
import { challenge } from '../../api/mcp/bearer';
import { buildToolEntry, TOOL_DEFINITIONS } from '../../api/mcp/toolCatalog';
import type { Config } from '../../core/config';
import { defineRoute } from '../../api/routeSpec';
import { CLIENT_SECRET_PREFIX, generateClientSecret, hashClientSecret, matchesLiveSecret, rotateSecrets } from '../../core/oauth/clientSecrets';
import { retryAfterSeconds, windowStartOf } from '../../core/oauth/clientRateLimit';
import { isKeyAcceptable } from '../../core/oauth/signingKeys';
import { checkResource, checkScope, clientCredentialsOf, OAuthError, parseTokenForm } from '../../core/oauth/tokenRequest';

const basic = (id: string, secret: string) => 'Basic ' + Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64');
function oauthError(fn: () => unknown): OAuthError {
  try {
    fn();
  } catch (err) {
    if (err instanceof OAuthError) return err;
    throw err;
  }
  throw new Error('expected an OAuthError');
}

describe('token request parsing (RFC 6749)', () => {
  test('form parameters; a repeated parameter is invalid_request', () => {
    expect(parseTokenForm('grant_type=client_credentials&scope=mcp%3Atools').get('scope')).toBe('mcp:tools');
    expect(oauthError(() => parseTokenForm('scope=a&scope=b')).error).toBe('invalid_request');
  });

  test('client_secret_basic decodes form-encoded id and secret', () => {
    expect(clientCredentialsOf([basic('cli_a', 'x y:z%')], new Map())).toEqual({ clientId: 'cli_a', clientSecret: 'x y:z%', method: 'client_secret_basic' });
  });

  test('client_secret_post', () => {
    expect(
      clientCredentialsOf(
        [],
        new Map([
          ['client_id', 'cli_a'],
          ['client_secret', 's'],
        ]),
      ),
    ).toEqual({ clientId: 'cli_a', clientSecret: 's', method: 'client_secret_post' });
  });

  test('both methods at once, two Authorization headers, or a non-Basic scheme are invalid_request', () => {
    expect(oauthError(() => clientCredentialsOf([basic('cli_a', 's')], new Map([['client_secret', 's']]))).error).toBe('invalid_request');
    expect(oauthError(() => clientCredentialsOf([basic('a', 's'), basic('a', 's')], new Map())).error).toBe('invalid_request');
    expect(oauthError(() => clientCredentialsOf(['Bearer abc'], new Map())).error).toBe('invalid_request');
    expect(oauthError(() => clientCredentialsOf([basic('cli_a', 's')], new Map([['client_id', 'cli_b']]))).error).toBe('invalid_request');
  });

  test('no client authentication is 401 invalid_client; a broken Basic value carries the Basic challenge', () => {
    const none = oauthError(() => clientCredentialsOf([], new Map([['client_id', 'cli_a']])));
    expect([none.error, none.status]).toEqual(['invalid_client', 401]);
    const broken = oauthError(() => clientCredentialsOf(['Basic ' + Buffer.from('nocolon').toString('base64')], new Map()));
    expect(broken.status).toBe(401);
    expect(broken.headers['WWW-Authenticate']).toMatch(/^Basic /);
  });

  test('scope must be exactly the allowed set; resource must name the tool server (a trailing slash allowed, canonical returned)', () => {
    expect(checkScope('mcp:tools', ['mcp:tools'])).toBe('mcp:tools');
    expect(checkScope('mcp:tools mcp:tools', ['mcp:tools'])).toBe('mcp:tools');
    expect(oauthError(() => checkScope('mcp:tools admin', ['mcp:tools'])).error).toBe('invalid_scope');
    expect(oauthError(() => checkScope(' ', ['mcp:tools'])).error).toBe('invalid_scope');
    expect(checkResource('https://m/tools', 'https://m/tools')).toBe('https://m/tools');
    expect(checkResource('https://m/tools/', 'https://m/tools')).toBe('https://m/tools');
    expect(oauthError(() => checkResource('https://m/tools//', 'https://m/tools')).error).toBe('invalid_target');
    expect(oauthError(() => checkResource('https://m/Tools', 'https://m/tools')).error).toBe('invalid_target');
    expect(oauthError(() => checkResource('https://m/', 'https://m/tools')).error).toBe('invalid_target');
  });
});

describe('client secrets', () => {
  test('generated secrets are prefixed, long and distinct; only hashes are compared', () => {
    const a = generateClientSecret();
    expect(a.startsWith(CLIENT_SECRET_PREFIX)).toBe(true);
    expect(a.length).toBe(CLIENT_SECRET_PREFIX.length + 48);
    expect(generateClientSecret()).not.toBe(a);
    expect(hashClientSecret(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  test('rotation keeps the previous secret live for the grace period and drops older ones', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const s1 = { _id: 'cs_1', hash: hashClientSecret('one'), createdAt: now, expiresAt: null };
    const s2 = { _id: 'cs_2', hash: hashClientSecret('two'), createdAt: now, expiresAt: null };
    const afterFirst = rotateSecrets([s1], s2, now, 3600);
    expect(matchesLiveSecret('one', afterFirst, new Date(now.getTime() + 3599_000))).toBe(true);
    expect(matchesLiveSecret('one', afterFirst, new Date(now.getTime() + 3600_000))).toBe(false);
    expect(matchesLiveSecret('two', afterFirst, new Date(now.getTime() + 10 * 3600_000))).toBe(true);
    const s3 = { _id: 'cs_3', hash: hashClientSecret('three'), createdAt: now, expiresAt: null };
    const afterSecond = rotateSecrets(afterFirst, s3, now, 3600);
    expect(afterSecond.map((s) => s._id)).toEqual(['cs_2', 'cs_3']);
    expect(rotateSecrets([s1], s2, now, 0).map((s) => s._id)).toEqual(['cs_2']);
  });
});

describe('rate-limit window and signing-key acceptance', () => {
  test('one-minute windows; Retry-After is the rest of the window, at least 1 s', () => {
    expect(windowStartOf(125_000)).toBe(120_000);
    expect(retryAfterSeconds(120_000)).toBe(60);
    expect(retryAfterSeconds(179_500)).toBe(1);
  });

  test('a superseded key verifies for one token lifetime plus a minute of skew', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    expect(isKeyAcceptable({ supersededAt: null }, at, 900)).toBe(true);
    expect(isKeyAcceptable({ supersededAt: at }, new Date(at.getTime() + 959_000), 900)).toBe(true);
    expect(isKeyAcceptable({ supersededAt: at }, new Date(at.getTime() + 960_000), 900)).toBe(false);
  });
});

describe('tool catalogue', () => {
  test('every tool names an agreed operation and has a description', () => {
    const ops = TOOL_DEFINITIONS.map((t) => t.operation);
    expect(ops).toEqual(
      expect.arrayContaining([
        'candidates.search',
        'search.sources',
        'profiles.unlock',
        'person_matches.create',
        'contact_retrieval_jobs.create',
        'contact_retrieval_jobs.get',
        'job_results.get',
        'contact_retrieval_jobs.cancel',
      ]),
    );
    expect(new Set(TOOL_DEFINITIONS.map((t) => t.name)).size).toBe(TOOL_DEFINITIONS.length);
  });

  test('a non-object body becomes a `body` argument', () => {
    const spec = defineRoute({
      operation: 'person_matches.create',
      method: 'POST',
      path: '/v1/x',
      tag: 't',
      summary: 's',
      body: z.array(z.string()),
      responses: { 200: { description: 'ok' } },
      handler: async () => ({ status: 200 }),
    });
    const entry = buildToolEntry(TOOL_DEFINITIONS[0], spec);
    expect(entry.plan.bodyArgument).toBe(true);
    expect(entry.inputSchema).toMatchObject({ required: ['body'], properties: { body: { type: 'array' } } });
  });
});

describe('bearer challenge (RFC 6750, RFC 9728)', () => {
  const config = { mcpUrl: 'https://mcp.example', authUrl: 'https://auth.example' } as Config;
  test('no token: the resource metadata and the scope to ask for', () => {
    expect(challenge(config)).toBe('Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/tools", scope="mcp:tools"');
  });
  test('a bad token: invalid_token; a narrow one: insufficient_scope naming the scope; quotes never break the header', () => {
    expect(challenge(config, 'invalid_token', 'bad "token"')).toBe(
      'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/tools", scope="mcp:tools", error="invalid_token", error_description="bad token"',
    );
    expect(challenge(config, 'insufficient_scope', 'x')).toContain('scope="mcp:tools"');
  });
  test('insufficient_scope lists every scope the call needs together with those the token had; other challenges only the needed ones', () => {
    expect(challenge(config, 'insufficient_scope', 'x', ['openid', 'mcp:tools'])).toContain('scope="mcp:tools openid"');
    expect(challenge(config, 'invalid_token', 'x', ['openid'])).toContain('scope="mcp:tools"');
    expect(challenge(config, 'invalid_token', 'x', ['openid'])).not.toContain('openid');
  });
  test('resource_metadata is always an absolute URL', () => {
    const value = /resource_metadata="([^"]+)"/.exec(challenge(config))![1];
    expect(new URL(value).href).toBe(value);
  });
});
