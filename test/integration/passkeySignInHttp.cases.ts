import { createUser } from '../../core/users/users';
import { createTenant } from '../support/fixtures';
import { FormBrowser, formField } from '../support/formBrowser';
import { startSignInApi } from '../support/signInApi';
import { enrolSoftPasskey } from '../support/softAuthenticator';
import type { TestApi } from '../support/testApi';
import { fileStores } from '../support/testStore';

/**
 * "Sign in with a passkey" over HTTP, as the sign-in page's script drives it: the options (a fresh
 * challenge for this browser, any discoverable passkey, user verification required) are behind
 * the page's CSRF token and held to a per-address rate; the page's CSP lets its own script fetch them.
 */
let srv: TestApi;

beforeAll(async () => {
  srv = await startSignInApi({ ADDRESS_PASSKEY_OPTIONS_PER_MINUTE: '3' });
});
afterAll(async () => srv?.close());

test('the sign-in page carries the passkey form under a CSP that allows its own script and fetches only', async () => {
  const browser = new FormBrowser(srv.url);
  const page = await browser.request('/api/oauth/signin');
  expect(page.text).toContain('<button type="submit">Sign in with a passkey</button>');
  expect(page.text).toContain('<script src="/console/assets/passkeys.js"></script>');
  const csp = page.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  const bundle = await browser.request('/console/assets/simplewebauthn-browser.js');
  expect(bundle.status).toBe(200);
  expect(bundle.text).toContain('SimpleWebAuthnBrowser');
});

test('a passkey signs in over HTTP; options need the CSRF token and are limited per address', async () => {
  const tenant = await createTenant();
  const made = await createUser(
    fileStores(),
    srv.config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email: `http${Date.now()}@example.com`,
      permissions: ['candidates.search'],
    },
    new Date(),
  );
  const { authenticator } = await enrolSoftPasskey(srv.config.authUrl, made.user_id, 'Phone');

  const browser = new FormBrowser(srv.url);
  const page = await browser.request('/api/oauth/signin');
  const csrf = formField(page.text, 'csrf_token');
  expect((await browser.request('/api/oauth/passkey/options', { form: { csrf_token: 'forged' } })).status).toBe(403);

  const answer = await browser.request('/api/oauth/passkey/options', { form: { csrf_token: csrf } });
  expect(answer.status).toBe(200);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  const options = JSON.parse(answer.text);
  expect(options).toMatchObject({ rpId: '127.0.0.1', userVerification: 'required' });
  expect(options.allowCredentials ?? []).toEqual([]);

  authenticator.signCount = 1;
  const signedIn = await browser.request('/api/oauth/passkey', {
    form: { csrf_token: csrf, credential: JSON.stringify(authenticator.assert(options.challenge, srv.url)) },
  });
  expect(signedIn.status).toBe(303);
  expect(signedIn.location).toBe('/console/overview');
  expect((await browser.request('/console/overview')).status).toBe(200);

  // The address's third request within the minute (the forged one counted too) is its last.
  const other = new FormBrowser(srv.url);
  const otherCsrf = formField((await other.request('/api/oauth/signin')).text, 'csrf_token');
  expect((await other.request('/api/oauth/passkey/options', { form: { csrf_token: otherCsrf } })).status).toBe(200);
  const refused = await other.request('/api/oauth/passkey/options', { form: { csrf_token: otherCsrf } });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
});
