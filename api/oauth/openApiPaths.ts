import { JWKS_PATH, AUTHORIZATION_SERVER_METADATA_PATH, OPENID_CONFIGURATION_PATH, TOKEN_PATH } from './discovery';
import {
  AUTHORIZE_PATH,
  CONNECTIONS_PAGE_PATH,
  CONSENT_PAGE_PATH,
  PASSKEY_SIGN_IN_OPTIONS_PATH,
  PASSKEY_SIGN_IN_PATH,
  PASSWORD_RESET_PAGE_PATH,
  REGISTER_PATH,
  REVOKE_CONNECTION_PATH,
  SETUP_PAGE_PATH,
  SIGN_IN_PAGE_PATH,
  SIGN_OUT_PATH,
  TWO_FACTOR_PAGE_PATH,
} from './pagePaths';
import { objectSchema } from '../reference/objectSchema';

/**
 * The authorization server's endpoints in the API reference (they live at AUTH_URL, outside
 * /v1, and are not route specs). OAuth errors are RFC 6749 / RFC 7591 JSON bodies, not problem
 * documents; the pages answer HTML.
 */
/** An OAuth error body (RFC 6749 section 5.2, RFC 6750 section 3): the token endpoint's and a bearer refusal's. */
export const OAUTH_ERROR_SCHEMA = objectSchema(['error'], { error: { type: 'string' }, error_description: { type: 'string' } });

const PAGE_EXAMPLE =
  '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Sign in · Talent platform</title></head>\n<body><main><h1>Sign in</h1><form method="post">…</form></main></body>\n</html>\n';
const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' }, example: PAGE_EXAMPLE } } });
const oauthErrorContent = (error: string, errorDescription: string) => ({
  'application/json': { schema: OAUTH_ERROR_SCHEMA, example: { error, error_description: errorDescription } },
});
const CSRF_EXAMPLE = 'Yp3Jx0k2Qm8RtV5wN9bL4cH7dF1sG6aE';
const seeOther = (description: string) => ({ description, headers: { Location: { schema: { type: 'string' } } } });
const form = (properties: Record<string, unknown>, required: string[], example: Record<string, string>) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required }, example } },
});
const grant = (type: string, title: string, properties: Record<string, unknown>, required: string[]) => ({
  title,
  type: 'object',
  properties: { grant_type: { const: type }, ...properties },
  required: ['grant_type', ...required],
});
const csrf = { csrf_token: { type: 'string', description: 'The CSRF token of the page the form came from.' } };
/** Any request the HTTP parser refuses, and any failure the pages do not answer themselves, is a problem document. */
const parserRefusal = { '4XX': { $ref: '#/components/responses/RequestRefused' } };
const otherFailure = { default: { $ref: '#/components/responses/Problem' } };
const browserRefusal = { 403: { $ref: '#/components/responses/OriginNotAllowed' } };
const query = (name: string, description: string, required = false, schema: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});

export function oauthOpenApiPaths(authUrl: string): Record<string, unknown> {
  const common = { tags: ['OAuth'], security: [], servers: [{ url: authUrl }] };
  const page = { tags: ['Sign-in pages'], security: [], servers: [{ url: authUrl }] };
  const tokenResponse = objectSchema(['access_token', 'token_type', 'expires_in', 'scope'], {
    access_token: { type: 'string', description: 'RFC 9068 JWT for {MCP_URL}/tools' },
    token_type: { const: 'Bearer' },
    expires_in: { type: 'integer' },
    refresh_token: { type: 'string' },
    scope: { const: 'mcp:tools' },
  });
  const metadataExample = {
    issuer: authUrl,
    authorization_endpoint: `${authUrl}${AUTHORIZE_PATH}`,
    token_endpoint: `${authUrl}${TOKEN_PATH}`,
    registration_endpoint: `${authUrl}${REGISTER_PATH}`,
    jwks_uri: `${authUrl}${JWKS_PATH}`,
    grant_types_supported: ['authorization_code', 'client_credentials', 'refresh_token'],
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    scopes_supported: ['mcp:tools'],
  };
  return {
    [AUTHORIZATION_SERVER_METADATA_PATH]: {
      get: {
        ...common,
        operationId: 'oauthMetadata',
        summary: 'Authorization server metadata (RFC 8414)',
        responses: {
          200: { description: 'Metadata', content: { 'application/json': { schema: { type: 'object' }, example: metadataExample } } },
          ...browserRefusal,
          ...parserRefusal,
        },
      },
    },
    [OPENID_CONFIGURATION_PATH]: {
      get: {
        ...common,
        operationId: 'oauthOpenIdConfiguration',
        summary: 'The same authorization server metadata at the OpenID Connect Discovery location',
        responses: {
          200: { description: 'Metadata', content: { 'application/json': { schema: { type: 'object' }, example: metadataExample } } },
          ...browserRefusal,
          ...parserRefusal,
        },
      },
    },
    [JWKS_PATH]: {
      get: {
        ...common,
        operationId: 'oauthJwks',
        summary: 'Token signing keys (JWKS)',
        responses: {
          200: {
            description: 'JWK set',
            content: {
              'application/jwk-set+json': {
                schema: { type: 'object' },
                example: {
                  keys: [
                    {
                      kty: 'EC',
                      crv: 'P-256',
                      kid: 'jwk_4Tq8Xm2Kb7Rn3Wv9Lc5YdH',
                      use: 'sig',
                      alg: 'ES256',
                      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
                      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
                    },
                  ],
                },
              },
            },
          },
          ...browserRefusal,
          429: { $ref: '#/components/responses/AddressRateLimited' },
          ...parserRefusal,
        },
      },
    },
    [AUTHORIZE_PATH]: {
      get: {
        ...common,
        operationId: 'oauthAuthorize',
        summary: 'Authorization endpoint: code with PKCE S256 (browser)',
        description:
          'Unknown client or unregistered redirect_uri: an HTML error page. Other errors redirect to the client with error, state and iss (RFC 9207).',
        parameters: [
          query('response_type', '`code`', true, { const: 'code' }),
          query('client_id', 'A registered client id or a Client ID Metadata Document URL', true, {
            type: 'string',
            minLength: 1,
            example: 'pcl_7Hq2mZ4kP9xW3vN8bR5tLc',
          }),
          query('redirect_uri', 'Exactly as registered (loopback http: any port)'),
          query('code_challenge', 'S256 challenge: base64url SHA-256 of the code verifier', true, {
            type: 'string',
            pattern: '^[A-Za-z0-9_-]{43}$',
            example: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          }),
          query('code_challenge_method', '`S256`', true, { const: 'S256' }),
          query('state', 'Returned unchanged'),
          query('scope', '`mcp:tools` (default)'),
          query('resource', '`{MCP_URL}/tools` (default)'),
        ],
        responses: {
          303: seeOther('To the sign-in or consent page, or back to the client with code or error, state and iss'),
          400: html('Error page (no redirect)'),
          ...otherFailure,
        },
      },
    },
    [TOKEN_PATH]: {
      post: {
        ...common,
        operationId: 'oauthToken',
        summary: 'Token endpoint: client_credentials (M2M), authorization_code and refresh_token',
        description: 'Machine clients authenticate with `client_secret_basic` (or `client_secret_post`); public clients send `client_id` only.',
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                oneOf: [
                  grant(
                    'client_credentials',
                    'Machine-to-machine: an M2M credential of the operator CLI',
                    { client_id: { type: 'string' }, client_secret: { type: 'string' }, scope: { type: 'string' }, resource: { type: 'string' } },
                    [],
                  ),
                  grant(
                    'authorization_code',
                    "A person's client: the code from the authorization endpoint with its PKCE verifier",
                    {
                      client_id: { type: 'string' },
                      code: { type: 'string' },
                      redirect_uri: { type: 'string' },
                      code_verifier: { type: 'string' },
                      resource: { type: 'string' },
                    },
                    ['code', 'code_verifier'],
                  ),
                  grant(
                    'refresh_token',
                    "A person's client: a new access token (the refresh token rotates)",
                    { client_id: { type: 'string' }, refresh_token: { type: 'string' }, scope: { type: 'string' }, resource: { type: 'string' } },
                    ['refresh_token'],
                  ),
                ],
              },
              example: {
                grant_type: 'client_credentials',
                client_id: 'cli_8Wm3Kq7Xb2Rt9Ln4Vc6YhD',
                client_secret: 'mcs_9fJ2kQ7mX4tR8wN3vB6cL1hD5sG0aEyZ4Kq9Xm2Rb7Tn3Wv8',
                resource: 'https://mcp.example.com/tools',
              },
            },
          },
        },
        responses: {
          200: {
            description: 'Tokens',
            content: {
              'application/json': {
                schema: tokenResponse,
                example: {
                  access_token:
                    'eyJhbGciOiJFUzI1NiIsImtpZCI6Imp3a180VHE4WG0yS2I3Um4zV3Y5TGM1WWRIIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJjbGlfOFdtM0txN1hiMlJ0OUxuNFZjNlloRCJ9.c2lnbmF0dXJl',
                  token_type: 'Bearer',
                  expires_in: 900,
                  scope: 'mcp:tools',
                },
              },
            },
          },
          400: {
            description: 'OAuth error (RFC 6749 5.2)',
            content: oauthErrorContent('invalid_grant', 'The authorization code is invalid, used or expired.'),
          },
          401: { description: 'invalid_client', content: oauthErrorContent('invalid_client', 'Client authentication failed.') },
          429: {
            description: 'rate_limited (M2M credential)',
            content: oauthErrorContent('rate_limited', 'Too many token requests for this client; retry later.'),
          },
        },
      },
    },
    [REGISTER_PATH]: {
      post: {
        ...common,
        operationId: 'oauthRegister',
        summary: 'Dynamic client registration (RFC 7591), public clients only',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['redirect_uris'],
                properties: {
                  redirect_uris: { type: 'array', items: { type: 'string' } },
                  client_name: { type: 'string' },
                  // null, like an absent member, takes the default (RFC 7591 section 2).
                  token_endpoint_auth_method: { enum: ['none', null], description: 'default `none`' },
                  grant_types: {
                    type: ['array', 'null'],
                    items: { enum: ['authorization_code', 'refresh_token'] },
                    description: 'default `["authorization_code", "refresh_token"]`',
                  },
                  response_types: { type: ['array', 'null'], items: { const: 'code' }, description: 'default `["code"]`' },
                  application_type: { enum: ['web', 'native', null], description: 'default `web`' },
                },
              },
              example: { client_name: 'Acme Assistant', redirect_uris: ['http://127.0.0.1:33418/callback'], application_type: 'native' },
            },
          },
        },
        responses: {
          201: {
            description: 'Registered',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['client_id', 'redirect_uris', 'grant_types', 'response_types', 'token_endpoint_auth_method', 'application_type', 'scope'],
                  properties: {
                    client_id: { type: 'string' },
                    client_id_issued_at: { type: 'integer', description: 'Unix seconds' },
                    client_name: { type: 'string' },
                    redirect_uris: { type: 'array', items: { type: 'string' } },
                    grant_types: { type: 'array', items: { enum: ['authorization_code', 'refresh_token'] } },
                    response_types: { type: 'array', items: { const: 'code' } },
                    token_endpoint_auth_method: { const: 'none' },
                    application_type: { enum: ['web', 'native'] },
                    scope: { const: 'mcp:tools' },
                  },
                },
                example: {
                  client_id: 'pcl_7Hq2mZ4kP9xW3vN8bR5tLc',
                  client_id_issued_at: 1764079391,
                  client_name: 'Acme Assistant',
                  redirect_uris: ['http://127.0.0.1:33418/callback'],
                  grant_types: ['authorization_code', 'refresh_token'],
                  response_types: ['code'],
                  token_endpoint_auth_method: 'none',
                  application_type: 'native',
                  scope: 'mcp:tools',
                },
              },
            },
          },
          400: {
            description: 'invalid_client_metadata or invalid_redirect_uri',
            content: oauthErrorContent(
              'invalid_redirect_uri',
              'http://app.example.com/cb: http is allowed only for loopback redirects (127.0.0.1, [::1], localhost)',
            ),
          },
          429: {
            description: 'rate_limited (per client address)',
            content: oauthErrorContent('rate_limited', 'Too many registrations from this address; retry later.'),
          },
        },
      },
    },
    [SETUP_PAGE_PATH]: {
      get: {
        ...page,
        operationId: 'pageSetup',
        summary: 'Set-password page (one-time setup link)',
        parameters: [query('token', 'The setup token', true)],
        responses: { 200: html('Form'), 400: html('Invalid, used or expired link') },
      },
      post: {
        ...page,
        operationId: 'pageSetupSubmit',
        summary: 'Set the password',
        requestBody: form(
          { ...csrf, token: { type: 'string' }, new_password: { type: 'string' }, confirm_password: { type: 'string' } },
          ['csrf_token', 'token', 'new_password', 'confirm_password'],
          {
            csrf_token: CSRF_EXAMPLE,
            token: 'ust_Kq9Xm2Rb7Tn3Wv8Lc5YdH4Wm9Kq2Xb7Rt3Ln8Vc5Yh',
            new_password: 'correct horse battery staple',
            confirm_password: 'correct horse battery staple',
          },
        ),
        responses: { 200: html('Password set'), 400: html('Refused'), 403: html('CSRF check failed') },
      },
    },
    [PASSWORD_RESET_PAGE_PATH]: {
      get: {
        ...page,
        operationId: 'pagePasswordReset',
        summary: '"Reset your password" page (Forgot password?)',
        responses: { 200: html('Form'), ...parserRefusal },
      },
      post: {
        ...page,
        operationId: 'pagePasswordResetSubmit',
        summary: 'Mail a reset link: the same "Check your email" page for a known and an unknown address',
        requestBody: form({ ...csrf, email: { type: 'string' } }, ['csrf_token', 'email'], { csrf_token: CSRF_EXAMPLE, email: 'ada@example.com' }),
        responses: { 200: html('Check your email'), 403: html('CSRF check failed'), ...parserRefusal },
      },
    },
    [SIGN_IN_PAGE_PATH]: {
      get: {
        ...page,
        operationId: 'pageSignIn',
        summary: 'Sign-in page',
        parameters: [query('request', 'The pending authorization request')],
        responses: { 200: html('Form'), 303: seeOther('Already signed in'), ...parserRefusal },
      },
      post: {
        ...page,
        operationId: 'pageSignInSubmit',
        summary: 'Sign in',
        requestBody: form(
          { ...csrf, email: { type: 'string' }, password: { type: 'string' }, request: { type: 'string' } },
          ['csrf_token', 'email', 'password'],
          {
            csrf_token: CSRF_EXAMPLE,
            email: 'dana.meyer@example.com',
            password: 'correct horse battery staple',
            request: '6Wn3Kq8Xm2Rb7Tv4Lc9YdHp5Jx0k2Qm8R',
          },
        ),
        responses: {
          303: seeOther('Signed in'),
          401: html('Wrong email or password'),
          403: html('CSRF check failed'),
          429: html('Locked for a while'),
          ...otherFailure,
        },
      },
    },
    [TWO_FACTOR_PAGE_PATH]: {
      get: {
        ...page,
        operationId: 'pageTwoFactor',
        summary: '"Two-factor authentication" page: after the password of a person with a second factor',
        parameters: [
          query('request', 'The pending authorization request'),
          query('return_to', 'The console page to land on after signing in'),
          query('method', '`recovery_code` asks for a recovery code instead of an authentication code', false, { enum: ['code', 'recovery_code'] }),
        ],
        responses: {
          200: html('Form'),
          303: seeOther('No password was given in this browser (back to Sign in)'),
          400: html('A `method` this page does not know'),
          ...parserRefusal,
        },
      },
      post: {
        ...page,
        operationId: 'pageTwoFactorSubmit',
        summary: 'Give the second factor: the session is made only now',
        requestBody: form(
          {
            ...csrf,
            method: { enum: ['code', 'recovery_code'] },
            code: { type: 'string', description: 'The 6-digit code of the authenticator app' },
            recovery_code: { type: 'string', description: 'One of the recovery codes (used up)' },
            request: { type: 'string' },
            return_to: { type: 'string' },
          },
          ['csrf_token', 'method'],
          { csrf_token: CSRF_EXAMPLE, method: 'code', code: '492039', return_to: '/console/overview' },
        ),
        responses: {
          303: seeOther('Signed in'),
          401: html('Wrong code'),
          403: html('CSRF check failed'),
          429: html('Locked for a while'),
          ...otherFailure,
        },
      },
    },
    [CONSENT_PAGE_PATH]: {
      get: {
        ...page,
        operationId: 'pageConsent',
        summary: 'Consent page',
        parameters: [query('request', 'The pending authorization request', true)],
        responses: {
          200: html('Allow or Deny'),
          303: seeOther('Not signed in'),
          400: html('The sign-in request expired or was already completed'),
          ...parserRefusal,
        },
      },
      post: {
        ...page,
        operationId: 'pageConsentSubmit',
        summary: 'Allow or deny',
        requestBody: form({ ...csrf, request: { type: 'string' }, decision: { enum: ['allow', 'deny'] } }, ['csrf_token', 'request', 'decision'], {
          csrf_token: CSRF_EXAMPLE,
          request: '6Wn3Kq8Xm2Rb7Tv4Lc9YdHp5Jx0k2Qm8R',
          decision: 'allow',
        }),
        responses: { 303: seeOther('Back to the client with code or access_denied'), 403: html('CSRF check failed'), ...otherFailure },
      },
    },
    [CONNECTIONS_PAGE_PATH]: {
      get: {
        ...page,
        operationId: 'pageConnections',
        summary: 'Connected applications',
        responses: { 200: html('The list'), 303: seeOther('Not signed in'), ...parserRefusal },
      },
    },
    [REVOKE_CONNECTION_PATH]: {
      post: {
        ...page,
        operationId: 'pageRevokeConnection',
        summary: 'Revoke a connected application',
        requestBody: form({ ...csrf, client_id: { type: 'string' } }, ['csrf_token', 'client_id'], {
          csrf_token: CSRF_EXAMPLE,
          client_id: 'pcl_7Hq2mZ4kP9xW3vN8bR5tLc',
        }),
        responses: { 303: seeOther('Back to the list'), 403: html('CSRF check failed'), ...otherFailure },
      },
    },
    [PASSKEY_SIGN_IN_OPTIONS_PATH]: {
      post: {
        ...page,
        operationId: 'pagePasskeySignInOptions',
        summary: "WebAuthn options to sign in with a passkey (the sign-in page's script asks for them)",
        description:
          "A fresh challenge, bound to the browser's session cookie and valid for 5 minutes, with userVerification required and no allowCredentials: the browser offers the person's discoverable passkeys of this site.",
        requestBody: form(csrf, ['csrf_token'], { csrf_token: CSRF_EXAMPLE }),
        responses: {
          200: {
            description: 'PublicKeyCredentialRequestOptionsJSON',
            content: {
              'application/json': {
                schema: { type: 'object' },
                example: {
                  challenge: 'bU5xR2R2a1l4cE1mUjhXc0N6d0RkVGdIaktRblpMeXFvYkZh',
                  timeout: 120000,
                  rpId: 'console.example.com',
                  userVerification: 'required',
                },
              },
            },
          },
          403: html('CSRF check failed'),
          429: { $ref: '#/components/responses/AddressRateLimited' },
          ...otherFailure,
        },
      },
    },
    [PASSKEY_SIGN_IN_PATH]: {
      post: {
        ...page,
        operationId: 'pagePasskeySignInSubmit',
        summary: 'Sign in with a passkey alone',
        requestBody: form(
          {
            ...csrf,
            credential: { type: 'string', description: "The browser's PublicKeyCredential (an assertion) as JSON." },
            request: { type: 'string' },
            return_to: { type: 'string' },
          },
          ['csrf_token', 'credential'],
          { csrf_token: CSRF_EXAMPLE, credential: '{"id":"…","rawId":"…","type":"public-key","response":{…}}' },
        ),
        responses: { 303: seeOther('Signed in'), 401: html('The passkey could not be verified'), 403: html('CSRF check failed'), ...otherFailure },
      },
    },
    [SIGN_OUT_PATH]: {
      post: {
        ...page,
        operationId: 'pageSignOut',
        summary: 'Sign out',
        requestBody: form(csrf, ['csrf_token'], { csrf_token: CSRF_EXAMPLE }),
        responses: { 303: seeOther('To the sign-in page'), 403: html('CSRF check failed'), ...otherFailure },
      },
    },
  };
}
