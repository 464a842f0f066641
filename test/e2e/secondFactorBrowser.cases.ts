import { authenticator } from 'otplib';
import type { Browser, Page } from 'playwright-core';
import { allAuditEvents, listAuditEvents } from '../../core/audit/auditLog';
import { SUDO_WINDOW_MS } from '../../core/users/sudoMode';
import { startAccountsStack } from '../support/accountsStack';
import { contextPerFile } from '../support/browser';
import { checkPage, NOTHING_SCROLLS, setUpAndSignIn, signInContext, sidewaysScrollingAcross } from '../support/consoleBrowser';
import { createTenant, type TestTenant } from '../support/fixtures';
import type { Mailbox } from '../support/mailbox';
import { adminCli, createUserWithCli, uniqueEmail } from '../support/signInApi';
import { signIn, submitWith } from '../support/signInPages';
import { TestClock } from '../support/testClock';
import type { TestApi } from '../support/testApi';

/**
 * The second factor in chromium (DECISIONS.md "Accounts, settings …"), with the codes an
 * authenticator app would show computed in the test on the app's clock (a TestClock the test moves
 * by whole 30-second steps, so each code is a new one) and every notice read from a real SMTP
 * receiver: enrolment by the secret shown as text, sign-in asking for a code after the password,
 * a code working once, recovery codes, sudo mode by code, turning the app off, wrong codes
 * limited, and an organization's policy forcing enrolment.
 */
const PASSWORD = 'correct horse battery staple 12';
const STEP_MS = 30_000;

let srv: TestApi;
let mailbox: Mailbox;
let tenant: TestTenant;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
const clock = new TestClock();

beforeAll(async () => {
  ({ srv, mailbox, tenant, browser, close } = await startAccountsStack({ parts: { now: clock.now } }));
});
afterAll(async () => {
  await close?.();
});
const freshContext = contextPerFile(() => browser);

/** The code the authenticator app shows at the app's current time. */
const codeNow = (secret: string) => authenticator.clone({ epoch: clock.now() }).generate(secret);

async function here(page: Page): Promise<string> {
  await page.waitForLoadState();
  return new URL(page.url()).pathname;
}

async function signOut(page: Page): Promise<void> {
  await page.goto(`${srv.url}/console/overview`);
  await submitWith(page, 'Sign out');
}

/** Opens "Set up authenticator app" and turns it on with the code of the secret shown as text; answers the secret and the recovery codes. */
async function enrol(page: Page, shots?: string): Promise<{ secret: string; codes: string[] }> {
  await page.getByRole('link', { name: 'Set up authenticator app' }).click();
  await page.getByRole('heading', { level: 1, name: 'Set up authenticator app' }).waitFor();
  const secret = (await page.locator('#totp-secret').innerText()).trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  expect(await page.getByRole('img', { name: 'QR code of your authenticator app secret' }).count()).toBe(1);
  if (shots) expect(await checkPage(page, `${shots}-setup`)).toEqual([]);
  await page.getByLabel('Code', { exact: true }).fill(codeNow(secret));
  await submitWith(page, 'Turn on');
  await page.getByRole('heading', { level: 1, name: 'Your recovery codes' }).waitFor();
  const codes = await page.locator('#recovery-codes li').allInnerTexts();
  if (shots) expect(await checkPage(page, `${shots}-codes`)).toEqual([]);
  return { secret, codes: codes.map((c) => c.trim()) };
}

test('an authenticator app: enrolled by its secret, asked for after the password, each code used once, recovery codes, sudo by code, turned off; audited and mailed', async () => {
  const email = uniqueEmail('totp');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'] });
  const context = freshContext();
  await signInContext(context, made.setupUrl, email, PASSWORD);
  const page = await context.newPage();
  await page.goto(`${srv.url}/console/overview`);

  // Every person (a member here) has "Security" in the navigation.
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Security' }).click();
  await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
  expect(await checkPage(page, 'security-off')).toEqual([]);
  await page.getByRole('link', { name: 'Set up authenticator app' }).click();
  const offered = (await page.locator('#totp-secret').innerText()).trim();
  // A wrong first code turns nothing on, and the same secret stays on the page.
  await page.getByLabel('Code', { exact: true }).fill('000000');
  await submitWith(page, 'Turn on');
  expect(await page.getByRole('alert').innerText()).toContain('not correct');
  expect((await page.locator('#totp-secret').innerText()).trim()).toBe(offered);
  await page.goto(`${srv.url}/console/security`);

  const { secret, codes } = await enrol(page, 'security-totp');
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  expect(await page.locator('div[role="status"]').innerText()).toContain('The authenticator app is on');
  // Neither the secret nor a recovery code is stored in plaintext.
  const stored = JSON.stringify(await srv.deps.stores.users.findUser(made.userId));
  expect(stored).not.toContain(secret);
  for (const code of codes) expect(stored).not.toContain(code);
  expect(await mailbox.waitFor(email, 'A sign-in method was added')).toBeTruthy();
  const enabled = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'mfa.enabled' })).data;
  expect(enabled).toEqual([expect.objectContaining({ actor: `user:${made.userId}`, after: { user_id: made.userId, email, method: 'authenticator_app' } })]);
  const firstCode = codeNow(secret);

  // Sign-in asks for the code after the password; no session is made before it.
  await signOut(page);
  await signIn(page, email, PASSWORD);
  await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor();
  expect(await checkPage(page, 'two-factor-code')).toEqual([]);
  await page.goto(`${srv.url}/console/overview`);
  expect(await here(page)).toBe('/api/oauth/signin');
  await signIn(page, email, PASSWORD);
  // The code turned on with is used: the same step is refused.
  await page.getByLabel('Authentication code', { exact: true }).fill(firstCode);
  await submitWith(page, 'Verify');
  expect(await page.getByRole('alert').innerText()).toBe('That code is not correct.');
  clock.advance(STEP_MS);
  await page.getByLabel('Authentication code', { exact: true }).fill(codeNow(secret));
  await submitWith(page, 'Verify');
  expect(await here(page)).toBe('/console/overview');

  // A recovery code signs in once, and its use is mailed.
  await signOut(page);
  await signIn(page, email, PASSWORD);
  await page.getByRole('link', { name: 'Use a recovery code' }).click();
  expect(await checkPage(page, 'two-factor-recovery')).toEqual([]);
  await page.getByLabel('Recovery code', { exact: true }).fill(codes[0]);
  await submitWith(page, 'Verify');
  expect(await here(page)).toBe('/console/overview');
  const used = await mailbox.waitFor(email, 'A recovery code of your talent platform account was used');
  expect(used.text).not.toContain(codes[0]);
  await signOut(page);
  await signIn(page, email, PASSWORD);
  await page.getByRole('link', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Recovery code', { exact: true }).fill(codes[0]);
  await submitWith(page, 'Verify');
  expect(await page.getByRole('alert').innerText()).toBe('That code is not correct.');
  await page.getByLabel('Recovery code', { exact: true }).fill(codes[1]);
  await submitWith(page, 'Verify');
  expect(await here(page)).toBe('/console/overview');

  // Sudo mode takes a code in place of the password: new recovery codes after 15 minutes.
  clock.advance(SUDO_WINDOW_MS + STEP_MS);
  await page.goto(`${srv.url}/console/security`);
  expect(await page.locator('main').innerText()).toContain('8 of 10 left');
  await submitWith(page, 'Generate new recovery codes');
  await page.getByRole('heading', { level: 1, name: 'Confirm your password' }).waitFor();
  expect(await checkPage(page, 'confirm-with-code')).toEqual([]);
  await page.getByLabel('Authentication code', { exact: true }).fill(codeNow(secret));
  await submitWith(page, 'Verify');
  await page.getByRole('heading', { level: 1, name: 'Your recovery codes' }).waitFor();
  const fresh = (await page.locator('#recovery-codes li').allInnerTexts()).map((c) => c.trim());
  expect(fresh).toHaveLength(10);
  expect(fresh).not.toContain(codes[2]);
  expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'recovery_codes.generated' })).data).toEqual([
    expect.objectContaining({ actor: `user:${made.userId}`, after: { user_id: made.userId, email, count: 10 } }),
  ]);

  // Turning the app off (sudo still holds): audited, mailed, and sign-in asks for the password alone.
  await page.goto(`${srv.url}/console/security`);
  await submitWith(page, 'Turn off authenticator app');
  expect(await page.locator('div[role="status"]').innerText()).toContain('The authenticator app is off');
  expect(await mailbox.waitFor(email, 'A sign-in method was removed')).toBeTruthy();
  expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'mfa.disabled' })).data).toHaveLength(1);
  await signOut(page);
  await signIn(page, email, PASSWORD);
  expect(await here(page)).toBe('/console/overview');
  // No entry of the person's holds a secret or a code.
  const all = [];
  for await (const entry of allAuditEvents(srv.deps.stores, tenant.orgId)) all.push(entry);
  const entries = JSON.stringify(all);
  for (const value of [secret, ...codes, ...fresh]) expect(entries).not.toContain(value);
});

test('wrong codes after the password are limited like passwords: the sixth answer is 429 with Retry-After', async () => {
  const email = uniqueEmail('guessed');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'] });
  const context = freshContext();
  await signInContext(context, made.setupUrl, email, PASSWORD);
  const page = await context.newPage();
  await page.goto(`${srv.url}/console/security`);
  const { secret } = await enrol(page);
  await signOut(page);
  await signIn(page, email, PASSWORD);
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) {
    await page.getByLabel('Authentication code', { exact: true }).fill(i % 2 ? '123456' : '654321');
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Verify' }).click()]);
    statuses.push(answer.status());
    if (answer.status() === 429) expect(Number(answer.headers()['retry-after'])).toBeGreaterThan(0);
    await page.waitForLoadState();
  }
  expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  // Even the right code waits until the window has passed.
  clock.advance(STEP_MS);
  await page.getByLabel('Authentication code', { exact: true }).fill(codeNow(secret));
  await submitWith(page, 'Verify');
  expect(await page.getByRole('alert').innerText()).toContain('Too many');
});

test('an organization that requires two-factor authentication takes a person without one to enrol, and lets them do nothing else until they have', async () => {
  const own = await createTenant();
  const admin = await createUserWithCli(srv, {
    orgId: own.orgId,
    workspaceId: own.workspaceId,
    email: uniqueEmail('policy-admin'),
    permissions: ['candidates.search'],
    role: 'admin',
  });
  const member = await createUserWithCli(srv, {
    orgId: own.orgId,
    workspaceId: own.workspaceId,
    email: uniqueEmail('policy-member'),
    permissions: ['candidates.search'],
  });
  const adminContext = freshContext();
  await signInContext(adminContext, admin.setupUrl, admin.email, PASSWORD);
  const adminPage = await adminContext.newPage();
  await adminPage.goto(`${srv.url}/console/settings`);
  expect(await adminPage.getByLabel('Require two-factor authentication', { exact: true }).isChecked()).toBe(false);
  expect(await checkPage(adminPage, 'settings-security-policy')).toEqual([]);
  await adminPage.getByLabel('Require two-factor authentication', { exact: true }).check();
  await submitWith(adminPage, 'Save security policy');
  // The admin has no factor either: the confirmation is shown where they are held, on Security.
  expect(await here(adminPage)).toBe('/console/security');
  expect(await adminPage.locator('div[role="status"]').innerText()).toBe('Two-factor authentication is now required in your organization.');
  expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, own.orgId, { action: 'security_policy.updated' })).data).toEqual([
    expect.objectContaining({ actor: `user:${admin.userId}`, before: { require_second_factor: false }, after: { require_second_factor: true } }),
  ]);
  await adminPage.goto(`${srv.url}/console/keys`);
  expect(await here(adminPage)).toBe('/console/security');

  const context = await browser.newContext();
  const page = await context.newPage();
  await setUpAndSignIn(page, srv, member.setupUrl, member.email, PASSWORD);
  expect(await here(page)).toBe('/console/security');
  expect(await page.getByRole('alert').innerText()).toContain('Your organization requires two-factor authentication');
  expect(await checkPage(page, 'security-required')).toEqual([]);
  expect(await sidewaysScrollingAcross(page)).toEqual(NOTHING_SCROLLS);
  for (const path of ['/console/overview', '/console/team', '/api/oauth/connections']) {
    await page.goto(`${srv.url}${path}`);
    expect(await here(page)).toBe('/console/security');
  }
  const { secret } = await enrol(page);
  await page.goto(`${srv.url}/console/team`);
  expect(await here(page)).toBe('/console/team');
  // Their only factor cannot be turned off while the organization requires one.
  await page.goto(`${srv.url}/console/security`);
  await submitWith(page, 'Turn off authenticator app');
  expect(await page.getByRole('alert').innerText()).toContain('add another second factor before you turn this one off');
  expect((await srv.deps.stores.users.findUser(member.userId))!.totpSecretSealed).toEqual(expect.any(String));
  // From now on signing in asks for the code.
  await signOut(page);
  await signIn(page, member.email, PASSWORD);
  clock.advance(STEP_MS);
  await page.getByLabel('Authentication code', { exact: true }).fill(codeNow(secret));
  await submitWith(page, 'Verify');
  expect(await here(page)).toBe('/console/overview');

  // The operator switches it off for this organization (audited as the operator); the held admin goes on.
  const cli = await adminCli(srv, 'org', 'require-2fa', '--org', own.orgId, '--required', 'off');
  expect(cli.json).toEqual({ org_id: own.orgId, require_second_factor: false });
  expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, own.orgId, { action: 'security_policy.updated', actor: 'operator' })).data).toHaveLength(
    1,
  );
  await adminPage.goto(`${srv.url}/console/keys`);
  expect(await here(adminPage)).toBe('/console/keys');
  const everywhere = await adminCli(srv, 'org', 'require-2fa', '--all', '--required', 'on');
  expect(everywhere.json).toMatchObject({ require_second_factor: true, organizations: expect.any(Number) });
  await adminPage.goto(`${srv.url}/console/keys`);
  expect(await here(adminPage)).toBe('/console/security');
  await adminCli(srv, 'org', 'require-2fa', '--all', '--required', 'off');
  await context.close();
});
