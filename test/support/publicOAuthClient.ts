import * as oauth from 'oauth4webapi';
import type { TestApi } from './testApi';

/**
 * A public OAuth client (a native MCP client such as Claude Code or VS Code) written with
 * oauth4webapi in its strict defaults: PKCE S256, `state`, the RFC 9207 `iss` check. The server
 * is the sign-in test API, whose own URL is AUTH_URL, so no request rewriting is needed.
 */
export const insecureLoopback = { [oauth.allowInsecureRequests]: true } as const;

export const toolsResource = (srv: TestApi) => `${srv.config.mcpUrl}/tools`;

export async function discoverAuthorizationServer(srv: TestApi): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(srv.config.authUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecureLoopback }));
}

/** RFC 7591 registration as MCP clients send it: public, code + refresh, loopback redirect. */
export async function registerPublicClient(
  as: oauth.AuthorizationServer,
  redirectUris: string[],
  clientName: string,
  extra: Record<string, unknown> = {},
): Promise<oauth.Client> {
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: clientName,
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    },
    insecureLoopback,
  );
  return oauth.processDynamicClientRegistrationResponse(res);
}

export interface PendingAuthorization {
  url: URL;
  state: string;
  codeVerifier: string;
  redirectUri: string;
}

export async function buildAuthorizationUrl(
  srv: TestApi,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  redirectUri: string,
  overrides: Record<string, string | null> = {},
): Promise<PendingAuthorization> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params: Record<string, string | null> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: 'mcp:tools',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    resource: toolsResource(srv),
    ...overrides,
  };
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return { url, state, codeVerifier, redirectUri };
}

/** Validates the callback (state, `iss`, error) and redeems the code; throws what oauth4webapi throws. */
export async function redeemCallback(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  pending: PendingAuthorization,
  callback: URL,
  codeVerifier = pending.codeVerifier,
): Promise<oauth.TokenEndpointResponse> {
  const params = oauth.validateAuthResponse(as, client, callback, pending.state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, pending.redirectUri, codeVerifier, insecureLoopback);
  return oauth.processAuthorizationCodeResponse(as, client, res);
}

export async function refresh(as: oauth.AuthorizationServer, client: oauth.Client, refreshToken: string): Promise<oauth.TokenEndpointResponse> {
  const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecureLoopback);
  return oauth.processRefreshTokenResponse(as, client, res);
}

/** A raw form POST to the token endpoint, for requests a compliant library never sends. */
export async function postToken(srv: TestApi, form: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(`${srv.config.authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

/** One JSON-RPC call to the tool server with a bearer token, as raw HTTP (status and challenge visible). */
export async function callToolServer(srv: TestApi, accessToken: string, method = 'tools/call', params: unknown = { name: 'whoami', arguments: {} }) {
  const res = await fetch(`${srv.config.mcpUrl}/tools`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), text: await res.text() };
}
