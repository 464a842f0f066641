import type { Browser, Page } from 'playwright-core';
import { listAuditEvents } from '../../core/audit/auditLog';
import { startAccountsStack } from '../support/accountsStack';
import { contextPerFile } from '../support/browser';
import { checkPage, setUpAndSignIn, sidewaysScrolling, signInContext } from '../support/consoleBrowser';
import { formField } from '../support/formBrowser';
import type { TestTenant } from '../support/fixtures';
import { linkIn, type Mailbox } from '../support/mailbox';
import { createUserWithCli, uniqueEmail } from '../support/signInApi';
import { signIn, submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * People's accounts in chromium (DECISIONS.md "Accounts, settings …"), every mail read from a
 * real SMTP receiver: "Forgot password?" → "Reset your password" → "Check your email" → the
 * mailed link → "Choose a new password", which signs every other browser out and mails a notice.
 */
const PASSWORD = 'correct horse battery staple 12';
const NEW_PASSWORD = 'another horse battery staple 34';

let srv: TestApi;
let mailbox: Mailbox;
let tenant: TestTenant;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ srv, mailbox, tenant, browser, close } = await startAccountsStack());
});
afterAll(async () => {
  await close?.();
});
const freshContext = contextPerFile(() => browser);

async function askForReset(page: Page, email: string): Promise<{ status: number; text: string }> {
  await page.goto(`${srv.url}/api/oauth/signin`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
  await page.getByLabel('Email', { exact: true }).fill(email);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Send reset link' }).click(),
  ]);
  await page.getByRole('heading', { level: 1, name: 'Check your email' }).waitFor();
  return { status: answer.status(), text: await page.locator('main').innerText() };
}

test('forgot password: the mailed link sets a new password, every other browser is signed out, a notice is mailed and the reset audited', async () => {
  const email = uniqueEmail('forgetful');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'] });
  const elsewhere = await browser.newContext();
  await signInContext(elsewhere, made.setupUrl, email, PASSWORD);
  const other = await elsewhere.newPage();
  await other.goto(`${srv.url}/console/overview`);
  expect(new URL(other.url()).pathname).toBe('/console/overview');

  const page = await freshContext().newPage();
  const known = await askForReset(page, email);
  expect(await page.locator('div[role="status"]').count()).toBe(1);
  expect(await checkPage(page, 'reset-check-email')).toEqual([]);
  const nobody = uniqueEmail('nobody');
  const unknown = await askForReset(page, nobody);
  // The same status and the same words for an address without an account.
  expect(unknown).toEqual(known);

  const mail = await mailbox.waitFor(email, 'Reset your talent platform password');
  await page.goto(linkIn(mail, `${srv.url}/api/oauth/setup?token=`));
  await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
  expect(await checkPage(page, 'reset-choose')).toEqual([]);
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel('Confirm password', { exact: true }).fill(NEW_PASSWORD);
  await submitWith(page, 'Set password');
  await page.getByRole('heading', { level: 1, name: 'Password set' }).waitFor();

  // The browser signed in with the old password is signed out.
  await other.goto(`${srv.url}/console/overview`);
  expect(new URL(other.url()).pathname).toBe('/api/oauth/signin');
  // The old password no longer works; the new one does.
  await signIn(other, email, PASSWORD);
  expect(await other.getByRole('alert').innerText()).toContain('not correct');
  await signIn(other, email, NEW_PASSWORD);
  expect(new URL(other.url()).pathname).toBe('/console/overview');

  const notice = await mailbox.waitFor(email, 'Your talent platform password was changed');
  expect(notice.text).toContain(`${srv.url}/api/oauth/reset`);
  // The link is used: opening it again is refused.
  const again = await page.goto(linkIn(mail, `${srv.url}/api/oauth/setup?token=`));
  expect(again?.status()).toBe(400);
  const entries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'user.password_reset' })).data;
  expect(entries).toEqual([expect.objectContaining({ actor: `user:${made.userId}`, target: made.userId, after: { user_id: made.userId, email } })]);
  // Only the known address was mailed.
  expect((await srv.deps.stores.mail.outboxMailTo(email)).filter((m) => m.kind === 'password_reset')).toHaveLength(1);
  expect(await srv.deps.stores.mail.outboxMailTo(nobody)).toEqual([]);
  await elsewhere.close();
});

test('a sign-in from a new browser and a new API key are told by mail: the browser to its person, the key to every admin', async () => {
  const email = uniqueEmail('admin');
  const otherAdmin = uniqueEmail('admin2');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'], role: 'admin' });
  const second = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: otherAdmin,
    permissions: ['candidates.search'],
    role: 'admin',
  });
  const page = await freshContext().newPage();
  // The first sign-in ever is no news.
  await setUpAndSignIn(page, srv, made.setupUrl, email, PASSWORD);
  const secondAdmin = await browser.newContext();
  await signInContext(secondAdmin, second.setupUrl, otherAdmin, PASSWORD);

  const laptop = await browser.newContext({ userAgent: 'Mozilla/5.0 (Test laptop) Chromium' });
  const lp = await laptop.newPage();
  await lp.goto(`${srv.url}/api/oauth/signin`);
  await signIn(lp, email, PASSWORD);
  const notice = await mailbox.waitFor(email, 'New sign-in to your talent platform account');
  expect(notice.text).toContain('Test laptop');
  // Signing in again from a browser already known sends nothing more.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/signin/);
  await signIn(page, email, PASSWORD);
  expect(new URL(page.url()).pathname).toBe('/console/overview');

  await page.goto(`${srv.url}/console/keys/new`);
  await page.getByLabel('Name', { exact: true }).fill('Nightly export');
  await page.getByLabel('candidates.search', { exact: true }).check();
  await submitWith(page, 'Create key');
  await page.getByRole('heading', { level: 1, name: 'Your new API key' }).waitFor();
  for (const admin of [email, otherAdmin]) {
    const mail = await mailbox.waitFor(admin, 'A new API key was created in your organization');
    expect(mail.text).toContain(`${email} created the API key "Nightly export"`);
    expect(mail.text).not.toContain('sk_live');
  }
  expect(mailbox.to(email).filter((m) => m.subject.startsWith('New sign-in'))).toHaveLength(1);
  await laptop.close();
});

test('Team lists many pending invitations with long addresses: nothing scrolls sideways at 375, 1,280 and 1,440 px, and axe finds nothing serious', async () => {
  const made = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: uniqueEmail('team-admin'),
    permissions: ['candidates.search', 'jobs.v1:read'],
    role: 'admin',
  });
  const context = freshContext();
  await signInContext(context, made.setupUrl, made.email, PASSWORD);
  // Eleven invitations posted as the invite form posts them (what is under test is Team with many
  // of them), the twelfth through the form itself.
  const invitePage = await (await context.request.get(`${srv.url}/console/team/invite`)).text();
  for (let i = 0; i < 11; i++) {
    const form = new URLSearchParams({
      csrf_token: formField(invitePage, 'csrf_token'),
      email: uniqueEmail(`maximiliana.rodriguez-vanderberg${i}`),
      role: 'member',
    });
    form.append('permissions', 'candidates.search');
    if (i % 2) form.append('permissions', 'jobs.v1:read');
    const posted = await context.request.post(`${srv.url}/console/team/invite`, {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      data: form.toString(),
      maxRedirects: 0,
    });
    expect([i, posted.status(), posted.headers().location]).toEqual([i, 303, '/console/team?done=invited']);
  }
  const page = await context.newPage();
  await page.goto(`${srv.url}/console/team/invite`);
  await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('maximiliana.rodriguez-vanderberg11'));
  await page.getByLabel('candidates.search', { exact: true }).check();
  await page.getByLabel('jobs.v1:read', { exact: true }).check();
  await submitWith(page, 'Invite');
  await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
  expect(await page.locator('div[role="status"]').innerText()).toBe('Invitation sent. The link in it works for 7 days.');
  expect(await page.getByRole('button', { name: 'Resend invitation' }).count()).toBeGreaterThanOrEqual(12);
  expect(await checkPage(page, 'team-invitations')).toEqual([]);
  for (const width of [375, 1280, 1440]) {
    expect(await sidewaysScrolling(page, width)).toEqual([]);
    if (process.env.CONSOLE_SHOTS) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `/tmp/console-shots/team-invitations-${width}.png`, fullPage: true });
    }
  }
});
