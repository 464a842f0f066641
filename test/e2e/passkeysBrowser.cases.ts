import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { listAuditEvents } from '../../core/audit/auditLog';
import { recordConfirmation } from '../../core/users/sudoMode';
import { cookieSettings } from '../../api/views/pageSecurity';
import { startAccountsStack } from '../support/accountsStack';
import { checkPage, NOTHING_SCROLLS, setUpAndSignIn, sidewaysScrollingAcross, signInContext } from '../support/consoleBrowser';
import type { TestTenant } from '../support/fixtures';
import type { Mailbox } from '../support/mailbox';
import { createUserWithCli, uniqueEmail } from '../support/signInApi';
import { signIn, submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * Passkeys in chromium with its virtual authenticator (the DevTools protocol's WebAuthn domain: a
 * CTAP2 platform authenticator that keeps discoverable credentials and verifies its user): adding
 * a named passkey on Security, signing out and back in with the passkey alone, removing it, each
 * change mailed to the person (read from a real SMTP receiver) and audited. The console is served
 * on `localhost`, since browsers offer no passkeys on an IP address.
 */
const PASSWORD = 'correct horse battery staple 12';

let srv: TestApi;
let mailbox: Mailbox;
let tenant: TestTenant;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ srv, mailbox, tenant, browser, close } = await startAccountsStack({ hostName: 'localhost' }));
});
afterAll(async () => {
  await close?.();
});

async function virtualAuthenticator(context: BrowserContext, page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

test('a person adds a named passkey, signs in with it alone, renames it and removes it; each change is mailed and audited', async () => {
  const email = uniqueEmail('passkey');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'] });
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  const { cdp, authenticatorId } = await virtualAuthenticator(context, page);
  await signInContext(context, made.setupUrl, email, PASSWORD);
  await page.goto(`${srv.url}/console/overview`);

  await page.getByRole('navigation').getByRole('link', { name: 'Security' }).click();
  await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
  expect(await page.getByText('You have no passkeys.').count()).toBe(1);
  expect(await checkPage(page, 'security-passkeys-empty')).toEqual([]);

  await page.getByLabel('Passkey name', { exact: true }).fill('Work laptop');
  await submitWith(page, 'Add a passkey');
  await page.getByRole('status').filter({ hasText: 'The passkey Work laptop was added.' }).waitFor();
  const row = page.getByRole('row').filter({ hasText: 'Work laptop' });
  expect(await row.count()).toBe(1);
  expect(await row.innerText()).toContain('Never');
  expect(await checkPage(page, 'security-passkeys')).toEqual([]);
  expect(await sidewaysScrollingAcross(page)).toEqual(NOTHING_SCROLLS);
  // The authenticator keeps a discoverable credential for this site, so the passkey alone names the person.
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);

  // The same authenticator again: the options exclude its passkey, so the browser refuses and the page says why.
  await page.getByRole('button', { name: 'Add a passkey', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'No passkey was added: this device already holds one for your account.' }).waitFor();
  expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1);

  const added = await mailbox.waitFor(email, 'A sign-in method was added to your talent platform account');
  expect(added.text).toContain('The passkey "Work laptop" was added to your account');
  const addedEntries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'passkey.added' })).data;
  expect(addedEntries).toEqual([
    expect.objectContaining({
      actor: `user:${made.userId}`,
      after: { passkey_id: expect.stringMatching(/^pk_/), user_id: made.userId, email, name: 'Work laptop' },
    }),
  ]);

  // Sign out, then in with the passkey alone: no email, no password.
  await submitWith(page, 'Sign out');
  expect(new URL(page.url()).pathname).toBe('/api/oauth/signin');
  expect(await checkPage(page, 'signin-with-passkey')).toEqual([]);
  await submitWith(page, 'Sign in with a passkey');
  await page.waitForURL((url) => url.pathname === '/console/overview');
  expect(await page.locator('.who').innerText()).toContain(email);
  await page.goto(`${srv.url}/console/security`);
  expect(await page.getByRole('row').filter({ hasText: 'Work laptop' }).innerText()).not.toContain('Never');

  await page.getByRole('link', { name: 'Rename Work laptop' }).click();
  await page.getByRole('heading', { level: 1, name: 'Rename passkey' }).waitFor();
  expect(await checkPage(page, 'security-passkey-rename')).toEqual([]);
  // A name too long for the rule, past the field's own maxlength (as a crafted form would send it).
  await page.getByLabel('Passkey name', { exact: true }).evaluate((input: { removeAttribute: (name: string) => void }) => input.removeAttribute('maxlength'));
  await page.getByLabel('Passkey name', { exact: true }).fill('x'.repeat(65));
  await submitWith(page, 'Save name');
  expect(await page.getByRole('alert').innerText()).toContain('Use at most 64 characters for the name.');
  await page.getByLabel('Passkey name', { exact: true }).fill('Office laptop');
  await submitWith(page, 'Save name');
  await page.getByRole('status').filter({ hasText: 'The passkey is now called Office laptop.' }).waitFor();
  const renamed = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'passkey.renamed' })).data;
  expect(renamed).toEqual([
    expect.objectContaining({ before: expect.objectContaining({ name: 'Work laptop' }), after: expect.objectContaining({ name: 'Office laptop' }) }),
  ]);

  await submitWith(page, 'Remove Office laptop');
  await page.getByRole('status').filter({ hasText: 'The passkey Office laptop was removed.' }).waitFor();
  expect(await page.getByText('You have no passkeys.').count()).toBe(1);
  const removed = await mailbox.waitFor(email, 'A sign-in method was removed from your talent platform account');
  expect(removed.text).toContain('The passkey "Office laptop" was removed from your account');
  const removedEntries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'passkey.removed' })).data;
  expect(removedEntries).toEqual([expect.objectContaining({ actor: `user:${made.userId}`, before: expect.objectContaining({ name: 'Office laptop' }) })]);

  // The authenticator still holds the credential, but the service no longer knows it.
  await submitWith(page, 'Sign out');
  await submitWith(page, 'Sign in with a passkey');
  await page.getByRole('alert').filter({ hasText: 'The passkey could not be verified' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/api/oauth/passkey');
  await context.close();
});

test('without JavaScript the sign-in page and Security say that passkeys need it, and an empty add is refused with the page kept', async () => {
  const email = uniqueEmail('nojs');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'] });
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await setUpAndSignIn(page, srv, made.setupUrl, email, PASSWORD);
  await page.goto(`${srv.url}/console/security`);
  expect(await page.locator('main').innerText()).toContain('Adding a passkey needs JavaScript, which is off in this browser.');
  await submitWith(page, 'Add a passkey');
  expect(await page.getByRole('alert').innerText()).toContain('No passkey was added: adding one needs JavaScript');
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Security');
  await submitWith(page, 'Sign out');
  expect(await page.locator('main').innerText()).toContain('Signing in with a passkey needs JavaScript, which is off in this browser.');
  await context.close();
});

test('with a passkey as the only factor: the password leads to "Two-factor authentication" and the passkey to the console; the passkey confirms sudo mode for removing it', async () => {
  const email = uniqueEmail('passkey2fa');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'] });
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  await virtualAuthenticator(context, page);
  await signInContext(context, made.setupUrl, email, PASSWORD);
  await page.goto(`${srv.url}/console/security`);
  await page.getByLabel('Passkey name', { exact: true }).fill('Phone');
  await submitWith(page, 'Add a passkey');
  await page.getByRole('status').filter({ hasText: 'The passkey Phone was added.' }).waitFor();

  // The password alone no longer signs in: the second step offers the passkey, and no code field.
  await submitWith(page, 'Sign out');
  await signIn(page, email, PASSWORD);
  await page.getByRole('heading', { level: 1, name: 'Two-factor authentication' }).waitFor();
  expect(await page.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(1);
  expect(await page.getByLabel('Authentication code').count()).toBe(0);
  await submitWith(page, 'Sign in with a passkey');
  await page.waitForURL((url) => url.pathname === '/console/overview');
  expect(await page.locator('.who').innerText()).toContain(email);

  // The sign-in's confirmation made older than sudo mode's 15 minutes: removing the passkey asks again, and the passkey answers.
  const cookie = (await context.cookies()).find((c) => c.name === cookieSettings(srv.config).name);
  await recordConfirmation(srv.deps.stores, cookie!.value, new Date(Date.now() - 20 * 60_000));
  await page.goto(`${srv.url}/console/security`);
  await submitWith(page, 'Remove Phone');
  await page.getByRole('heading', { level: 1, name: 'Confirm your password' }).waitFor();
  expect(await checkPage(page, 'confirm-with-passkey')).toEqual([]);
  await submitWith(page, 'Confirm with a passkey');
  await page.getByRole('status').filter({ hasText: 'The passkey Phone was removed.' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/security');
  expect(await page.getByText('You have no passkeys.').count()).toBe(1);
  const removedEntries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'passkey.removed' })).data;
  expect(removedEntries).toEqual(
    expect.arrayContaining([expect.objectContaining({ actor: `user:${made.userId}`, before: expect.objectContaining({ name: 'Phone' }) })]),
  );
  await context.close();
});
