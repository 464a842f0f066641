import * as oauth from 'oauth4webapi';
import type { TestApi } from '../support/testApi';

/** The URLs tokens are bound to in the OAuth and MCP tests (served by the test API behind them). */
export const AUTH_URL = 'http://auth.test.invalid';
export const MCP_URL = 'http://mcp.test.invalid';
export const RESOURCE = `${MCP_URL}/tools`;
export const OAUTH_ENV = { AUTH_URL, MCP_URL };

/** oauth4webapi fetches the configured public URLs; this sends them to the test server instead. */
export function routedFetch(srv: TestApi): typeof fetch {
  return (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const target = new URL(url.pathname + url.search, srv.url);
    return fetch(target, init);
  };
}

export async function discover(srv: TestApi): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(AUTH_URL);
  const res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.customFetch]: routedFetch(srv), [oauth.allowInsecureRequests]: true });
  return oauth.processDiscoveryResponse(issuer, res);
}

export function requestOptions(srv: TestApi) {
  return { [oauth.customFetch]: routedFetch(srv), [oauth.allowInsecureRequests]: true };
}

export async function clientCredentialsToken(
  srv: TestApi,
  as: oauth.AuthorizationServer,
  clientId: string,
  secret: string,
  method: 'post' | 'basic' = 'post',
): Promise<oauth.TokenEndpointResponse> {
  const auth = method === 'post' ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
  const res = await oauth.clientCredentialsGrantRequest(as, { client_id: clientId }, auth, { scope: 'mcp:tools', resource: RESOURCE }, requestOptions(srv));
  return oauth.processClientCredentialsResponse(as, { client_id: clientId }, res);
}

/** A raw form POST to the token endpoint, for the cases a compliant client library never sends. */
export async function tokenRequest(srv: TestApi, form: Record<string, string> | string, headers: Record<string, string> = {}) {
  const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  const res = await fetch(`${srv.url}/api/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json };
}

export function basic(id: string, secret: string): string {
  return 'Basic ' + Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64');
}
