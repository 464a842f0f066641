import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';
import type { LoopbackRedirect } from './loopbackRedirect';
import { authorizeInBrowser, type AuthorizeOutcome } from './signInPages';

/**
 * The MCP SDK's OAuthClientProvider as a desktop MCP client implements it, with the "user
 * agent" being the playwright page: `redirectToAuthorization` walks the page through sign-in
 * and consent and keeps the callback the loopback redirect received. Everything the SDK saves
 * is kept as given (the SDK stamps `issuer` on it and relies on reading it back unchanged).
 */
export class BrowserOAuthProvider implements OAuthClientProvider {
  saved: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string } = {};
  readonly states: string[] = [];
  authorizationUrls: URL[] = [];
  outcome?: AuthorizeOutcome;
  clientMetadataUrl?: string;

  constructor(
    private readonly page: Page,
    private readonly loopback: LoopbackRedirect,
    private readonly person: { email: string; password: string },
    private readonly clientName: string,
    private readonly opts: { clientMetadataUrl?: string; onConsent?: (page: Page) => Promise<void> } = {},
  ) {
    this.clientMetadataUrl = opts.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.loopback.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.loopback.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    const s = randomBytes(16).toString('base64url');
    this.states.push(s);
    return s;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.saved.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.saved.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved.tokens = tokens;
  }

  saveCodeVerifier(verifier: string): void {
    this.saved.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.saved.verifier) throw new Error('no code verifier saved');
    return this.saved.verifier;
  }

  /** What the SDK calls when the server says the stored credentials are no longer good. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') delete this.saved.tokens;
    if (scope === 'all' || scope === 'client') delete this.saved.client;
    if (scope === 'all' || scope === 'verifier') delete this.saved.verifier;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrls.push(url);
    this.outcome = await authorizeInBrowser(this.page, url.href, this.loopback, this.person, 'Allow', this.opts.onConsent);
  }

  /**
   * The code from the last callback, after the checks the SDK leaves to the application: the
   * state it sent and the RFC 9207 issuer of the server it discovered.
   */
  codeFromCallback(expectedIssuer: string): string {
    const cb = this.outcome?.callback;
    if (!cb) throw new Error('no authorization callback arrived');
    if (cb.searchParams.get('state') !== this.states.at(-1)) throw new Error(`callback state mismatch: ${cb.href}`);
    if (cb.searchParams.get('iss') !== expectedIssuer) throw new Error(`callback iss mismatch: ${cb.href}`);
    const code = cb.searchParams.get('code');
    if (!code) throw new Error(`callback without a code: ${cb.href}`);
    return code;
  }
}
