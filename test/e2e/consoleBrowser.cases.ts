import type { Browser, BrowserContext, Page } from 'playwright-core';
import { listAuditEvents } from '../../core/audit/auditLog';
import { createApiKey } from '../../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, NOTHING_SCROLLS, setUpAndSignIn, sidewaysScrollingAcross } from '../support/consoleBrowser';
import { linkIn, Mailbox } from '../support/mailbox';
import { createTenant, type TestTenant } from '../support/fixtures';
import { adminCli, createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import { submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * The organization console in a real browser, driven by the labels DECISIONS.md fixes
 * ("Organization console"): the operator makes an admin with the CLI; the admin sets a password,
 * signs in and lands on Overview; every page passes an axe-core check (no serious or critical
 * violation).
 */

const PASSWORD = 'correct horse battery staple 12';
const ADMIN_PERMISSIONS = ['candidates.search', 'jobs.v1:read', 'limits.v1:read', 'audit.v1:read'];

let srv: TestApi;
let mailbox: Mailbox;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** The organization's keys as the store holds them. */
const keysOf = (orgId: string) => srv.deps.stores.keys.keysOfOrg(orgId);
const admin = { userId: '', email: uniqueEmail('admin') };

beforeAll(async () => {
  mailbox = await Mailbox.start();
  srv = await startSignInApi({ SMTP_URL: mailbox.smtpUrl, MAIL_SENDER_INTERVAL_MS: '100' });
  tenant = await createTenant({ credits: 100 });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
});
afterAll(async () => {
  await closeBrowser(browser);
  await srv?.close();
  await mailbox?.stop();
});

const NAV = ['Overview', 'API keys', 'Limits', 'Budgets', 'Usage', 'Webhooks', 'Jobs', 'Team', 'Audit log', 'Settings', 'Connected applications', 'Security'];

async function expectAccessibleOf(shown: Page, name: string): Promise<void> {
  expect(await checkPage(shown, name)).toEqual([]);
}

async function expectAccessible(name: string): Promise<void> {
  await expectAccessibleOf(page, name);
}

test('a page of the console without a session sends the browser to sign in, and signing in comes back to it', async () => {
  const res = await fetch(`${srv.url}/console/team`, { redirect: 'manual' });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/api/oauth/signin?return_to=%2Fconsole%2Fteam');
});

test('the operator makes an admin; the admin sets a password, signs in and lands on Overview with the navigation', async () => {
  const made = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: admin.email,
    permissions: ADMIN_PERMISSIONS,
    role: 'admin',
  });
  admin.userId = made.userId;
  await setUpAndSignIn(page, srv, made.setupUrl, admin.email, PASSWORD);
  expect(new URL(page.url()).pathname).toBe('/console/overview');
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const nav = page.getByRole('navigation');
  expect(await nav.getByRole('link').allInnerTexts()).toEqual(NAV);
  expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
  await expectAccessible('overview');
});

test('an unknown console path is the console 404 page; "Connected applications" carries the navigation', async () => {
  const res = await page.goto(`${srv.url}/console/nothing-here`);
  expect(res?.status()).toBe(404);
  await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
  await page.getByRole('navigation').getByRole('link', { name: 'Connected applications' }).click();
  await page.getByRole('heading', { level: 1, name: 'Connected applications' }).waitFor();
  expect(await page.getByRole('navigation').getByRole('link').allInnerTexts()).toEqual(NAV);
  await expectAccessible('connections');
});

async function whoamiStatus(key: string): Promise<number> {
  const res = await fetch(`${srv.url}/v1/whoami`, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

async function newSecretShown(): Promise<string> {
  await page.getByRole('heading', { level: 1, name: 'Your new API key' }).waitFor();
  return (await page.locator('code#new-secret').innerText()).trim();
}

let firstKey = '';
let secondKey = '';

test('the admin creates a key on "Create an API key"; it is shown once and answers 200 on /v1/whoami', async () => {
  await page.goto(`${srv.url}/console/keys`);
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  await expectAccessible('keys');
  await page.getByRole('link', { name: 'Create an API key' }).click();
  await page.getByRole('heading', { level: 1, name: 'Create an API key' }).waitFor();
  // One checkbox per permission the admin has, labelled with the permission string; none beyond.
  for (const p of ADMIN_PERMISSIONS) expect(await page.getByLabel(p, { exact: true }).count()).toBe(1);
  expect(await page.getByLabel('webhooks.v1:manage', { exact: true }).count()).toBe(0);
  // Each permission's one-line description is its checkbox's description.
  const described = await page.getByLabel('audit.v1:read', { exact: true }).getAttribute('aria-describedby');
  expect(await page.locator(`#${described}`).innerText()).toBe("Read the organization's audit log.");
  await expectAccessible('key-new');
  await page.getByLabel('Name', { exact: true }).fill('Console e2e key');
  await page.getByLabel('Workspace', { exact: true }).selectOption(tenant.workspaceId);
  await page.getByLabel('candidates.search', { exact: true }).check();
  await page.getByLabel('Expires', { exact: true }).selectOption({ label: 'In 30 days' });
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.request().isNavigationRequest()),
    submitWith(page, 'Create key'),
  ]);
  expect(answer.headers()['cache-control']).toBe('no-store');
  firstKey = await newSecretShown();
  expect(firstKey).toMatch(/^sk_live_/);
  expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
  await expectAccessible('key-created');
  expect(await whoamiStatus(firstKey)).toBe(200);

  await page.goto(`${srv.url}/console/keys`);
  const row = page.getByRole('row').filter({ hasText: 'Console e2e key' });
  expect(await row.count()).toBe(1);
  const text = await row.innerText();
  expect(text).toContain(`by ${admin.email}`);
  expect(text).toContain('active');
  expect(text).not.toContain(firstKey);
});

test('"Rotate" with "In 1 hour": both keys answer 200; "Revoke" on the old one makes its next request 401', async () => {
  await page.goto(`${srv.url}/console/keys`);
  await page.getByRole('row').filter({ hasText: 'Console e2e key' }).getByRole('link', { name: 'Rotate' }).click();
  await page.getByRole('heading', { level: 1, name: 'Rotate API key' }).waitFor();
  await expectAccessible('key-rotate');
  await page.getByLabel('Old key stops working', { exact: true }).selectOption({ label: 'In 1 hour' });
  await submitWith(page, 'Rotate key');
  secondKey = await newSecretShown();
  expect(secondKey).not.toBe(firstKey);
  expect(await whoamiStatus(secondKey)).toBe(200);
  expect(await whoamiStatus(firstKey)).toBe(200);

  await page.goto(`${srv.url}/console/keys`);
  const rows = page.getByRole('row').filter({ hasText: 'Console e2e key' });
  expect(await rows.count()).toBe(2);
  const oldRow = rows.filter({ hasText: firstKey.slice(0, 16) });
  expect(await oldRow.count()).toBe(1);
  await oldRow.getByRole('link', { name: 'Revoke' }).click();
  await page.getByRole('heading', { level: 1, name: 'Revoke API key' }).waitFor();
  await expectAccessible('key-revoke');
  // The page is the one confirmation: no dialog asks again.
  page.once('dialog', (d) => {
    throw new Error(`a dialog asked again: ${d.message()}`);
  });
  await submitWith(page, 'Revoke key');
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  expect(await page.getByRole('status').innerText()).toMatch(/^The key Console e2e key \(sk_live_ext_.*…\) is revoked: its next request is refused\.$/);
  page.removeAllListeners('dialog');
  // The confirmation is said once: a reload shows none.
  await page.reload();
  expect(await page.getByRole('status').count()).toBe(0);
  expect(await whoamiStatus(firstKey)).toBe(401);
  expect(await whoamiStatus(secondKey)).toBe(200);
});

test('"Settings": the admin renames the organization; every page is headed with the new name; the change is audited', async () => {
  await page.goto(`${srv.url}/console/settings`);
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  await expectAccessible('settings');
  await page.getByLabel('Organization name', { exact: true }).fill('   ');
  await submitWith(page, 'Save name');
  expect(await page.getByRole('alert').innerText()).toBe('Not saved: Give the organization a name.');
  const longName = 'Northwind Talent Partners International — Recruiting Operations EMEA';
  await page.getByLabel('Organization name', { exact: true }).fill(longName);
  await submitWith(page, 'Save name');
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  expect(await page.getByRole('status').innerText()).toBe(`The organization is now called ${longName}.`);
  await page.goto(`${srv.url}/console/keys`);
  expect(await page.locator('header .brand').innerText()).toContain(longName);
  const [entry] = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'organization.updated' })).data;
  expect(entry).toMatchObject({ actor: `user:${admin.userId}`, after: { name: longName } });
});

test('"Select all" gives a new key every permission the admin holds; the CLI\'s `--permissions all` gives a person every one', async () => {
  await page.goto(`${srv.url}/console/keys/new`);
  await page.getByLabel('Name', { exact: true }).fill('Everything the admin has');
  await page.getByLabel('Select all', { exact: true }).check();
  for (const p of ADMIN_PERMISSIONS) expect(await page.getByLabel(p, { exact: true }).isChecked()).toBe(true);
  await submitWith(page, 'Create key');
  await newSecretShown();
  const key = (await keysOf(tenant.orgId)).find((k) => k.name === 'Everything the admin has');
  expect([...key!.scopes].sort()).toEqual([...ADMIN_PERMISSIONS].sort());

  const elsewhere = await createTenant({ credits: 0 });
  const all = await createUserWithCli(srv, {
    orgId: elsewhere.orgId,
    workspaceId: elsewhere.workspaceId,
    email: uniqueEmail('all-permissions'),
    permissions: ['all'],
  });
  const person = await srv.deps.stores.users.findUser(all.userId);
  expect([...person!.permissions].sort()).toEqual([...ALL_PERMISSIONS].sort());
});

test('sudo mode: a password typed more than 15 minutes ago is asked for again, then the person goes on to the form', async () => {
  // Ages this browser's sign-in as 16 minutes of waiting would.
  await srv.deps.stores.users.backdateBrowserSessionsOf(admin.userId, new Date(Date.now() - 16 * 60_000));
  await page.goto(`${srv.url}/console/keys/new`);
  await page.getByRole('heading', { level: 1, name: 'Confirm your password' }).waitFor();
  await expectAccessible('confirm');
  await page.getByLabel('Password', { exact: true }).fill('not the password at all');
  await submitWith(page, 'Confirm');
  await page.getByRole('heading', { level: 1, name: 'Confirm your password' }).waitFor();
  expect(await page.getByRole('alert').innerText()).toContain('not correct');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await submitWith(page, 'Confirm');
  await page.getByRole('heading', { level: 1, name: 'Create an API key' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/console/keys/new');
});

test('sudo mode: a form posted after the 15 minutes lands on "Confirm your password", and the password completes it as typed', async () => {
  await page.goto(`${srv.url}/console/keys/new`);
  await page.getByRole('heading', { level: 1, name: 'Create an API key' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill('Typed before the password was asked for');
  await page.getByLabel('candidates.search', { exact: true }).check();
  await page.getByLabel('jobs.v1:read', { exact: true }).check();
  // The form stayed open for 16 minutes.
  await srv.deps.stores.users.backdateBrowserSessionsOf(admin.userId, new Date(Date.now() - 16 * 60_000));
  const keysBefore = (await keysOf(tenant.orgId)).length;
  await submitWith(page, 'Create key');
  await page.getByRole('heading', { level: 1, name: 'Confirm your password' }).waitFor();
  expect((await keysOf(tenant.orgId)).length).toBe(keysBefore);
  await expectAccessible('confirm-held');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await submitWith(page, 'Confirm');
  await newSecretShown();
  const made = (await keysOf(tenant.orgId)).find((k) => k.name === 'Typed before the password was asked for');
  expect(made?.scopes).toEqual(['candidates.search', 'jobs.v1:read']);
});

const member = { userId: '', email: uniqueEmail('member') };
let memberContext: BrowserContext;
let memberPage: Page;

test('the admin invites a member on "Invite a person"; the invitation is mailed, its row says "Invitation pending", and its link sets the password', async () => {
  await page.goto(`${srv.url}/console/team`);
  await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
  await expectAccessible('team');
  await page.getByRole('link', { name: 'Invite a person' }).click();
  await page.getByRole('heading', { level: 1, name: 'Invite a person' }).waitFor();
  expect(await page.getByLabel('webhooks.v1:manage', { exact: true }).count()).toBe(0);
  await expectAccessible('team-invite');
  await page.getByLabel('Email', { exact: true }).fill(member.email);
  await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Member' });
  await page.getByLabel('candidates.search', { exact: true }).check();
  await submitWith(page, 'Invite');
  await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
  expect(await page.locator('div[role="status"]').innerText()).toContain('Invitation sent');
  const row = page.getByRole('row').filter({ hasText: member.email });
  // Who invited reads as a person, by email.
  expect(await row.getByRole('cell').nth(4).innerText()).toBe(`Invitation pending\ninvited by ${admin.email}`);
  expect(await row.getByRole('button', { name: `Resend invitation to ${member.email}` }).count()).toBe(1);
  expect(await row.getByRole('button', { name: `Cancel invitation to ${member.email}` }).count()).toBe(1);
  await expectAccessible('team-invited');
  const mail = await mailbox.waitFor(member.email, 'You are invited');
  expect(mail.text).toContain(admin.email);
  const setupUrl = linkIn(mail, `${srv.url}/api/oauth/setup?token=`);

  memberContext = await browser.newContext();
  memberPage = await memberContext.newPage();
  await setUpAndSignIn(memberPage, srv, setupUrl, member.email, PASSWORD);
  expect(new URL(memberPage.url()).pathname).toBe('/console/overview');
  const invited = await srv.deps.stores.users.findUserWithEmail(member.email);
  expect(invited).toMatchObject({ orgId: tenant.orgId, role: 'member', permissions: ['candidates.search'] });
  member.userId = invited!._id;
});

async function csrfOf(p: Page): Promise<string> {
  return (await p.locator('input[name="csrf_token"]').first().getAttribute('value')) ?? '';
}

test('a member\'s crafted POST to create a key is 403 "Not allowed" and creates nothing', async () => {
  const page403 = await memberPage.goto(`${srv.url}/console/keys/new`);
  expect(page403?.status()).toBe(403);
  await memberPage.getByRole('heading', { level: 1, name: 'Not allowed' }).waitFor();
  await expectAccessibleOf(memberPage, 'not-allowed');
  const keysBefore = (await keysOf(tenant.orgId)).length;
  const crafted = await memberPage.request.post(`${srv.url}/console/keys/new`, {
    form: { csrf_token: await csrfOf(memberPage), name: 'Sneaky', workspace: tenant.workspaceId, scopes: 'candidates.search', expires: 'never' },
    maxRedirects: 0,
  });
  expect(crafted.status()).toBe(403);
  expect(await crafted.text()).toContain('Not allowed');
  expect((await keysOf(tenant.orgId)).length).toBe(keysBefore);

  // Every other write of the console is refused the same way, whatever the form says.
  const csrf = await csrfOf(memberPage);
  const writes: Array<[string, Record<string, string>]> = [
    ['/console/team/invite', { csrf_token: csrf, email: uniqueEmail('sneaky'), role: 'admin', permissions: 'candidates.search' }],
    [`/console/team/${admin.userId}`, { csrf_token: csrf, role: 'member', permissions: 'candidates.search' }],
    [`/console/team/${admin.userId}/disable`, { csrf_token: csrf }],
    [`/console/team/${member.userId}`, { csrf_token: csrf, role: 'admin', permissions: 'candidates.search' }],
  ];
  for (const [path, form] of writes) {
    const refused = await memberPage.request.post(`${srv.url}${path}`, { form, maxRedirects: 0 });
    expect([path, refused.status()]).toEqual([path, 403]);
  }
  expect(await srv.deps.stores.users.findUser(admin.userId)).toMatchObject({ role: 'admin', disabledAt: null });
  expect((await srv.deps.stores.users.findUser(member.userId))?.role).toBe('member');
  expect((await srv.deps.stores.users.usersOfOrg(tenant.orgId)).length).toBe(2);
});

test("another organization's key id is the same 404 as an absent one, and posting to it changes nothing", async () => {
  const other = await createTenant({ credits: 0 });
  const foreign = await memberPage.goto(`${srv.url}/console/keys/${other.keyId}/revoke`);
  expect(foreign?.status()).toBe(404);
  await memberPage.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
  const absent = await memberPage.goto(`${srv.url}/console/keys/key_doesnotexist/revoke`);
  expect(absent?.status()).toBe(404);
  // An admin gets the same 404, and the foreign key keeps working.
  const posted = await page.request.post(`${srv.url}/console/keys/${other.keyId}/revoke`, { form: { csrf_token: await csrfOf(page) }, maxRedirects: 0 });
  expect(posted.status()).toBe(404);
  expect(await whoamiStatus(other.key)).toBe(200);
});

test('"Invite a person" answers alike for an address with an account elsewhere; Team lists every pending invitation as "Invitation pending"', async () => {
  const elsewhere = await createTenant();
  const taken = uniqueEmail('someone-with-an-account-elsewhere');
  await createUserWithCli(srv, { orgId: elsewhere.orgId, workspaceId: elsewhere.workspaceId, email: taken, permissions: ['jobs.v1:read'] });
  const fresh = uniqueEmail('someone-new-to-the-service-entirely');
  for (const email of [taken.toUpperCase(), fresh, uniqueEmail('third'), uniqueEmail('fourth')]) {
    await page.goto(`${srv.url}/console/team/invite`);
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('candidates.search', { exact: true }).check();
    await submitWith(page, 'Invite');
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    // The same landing for every address: Team, with "Invitation sent".
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/console/team?done=invited');
    expect(await page.locator('div[role="status"]').innerText()).toContain('Invitation sent');
  }
  await page.goto(`${srv.url}/console/team`);
  const invitations = page.getByRole('table', { name: 'Team' });
  for (const email of [taken, fresh]) {
    const row = invitations.getByRole('row').filter({ hasText: email });
    expect(await row.getByRole('cell', { name: 'Invitation pending' }).count()).toBe(1);
    expect(await row.getByRole('button', { name: `Resend invitation to ${email}` }).count()).toBe(1);
    expect(await row.getByRole('button', { name: `Cancel invitation to ${email}` }).count()).toBe(1);
  }
  // Only the mail tells them apart: the address in use is told it was invited, with no link.
  const note = await mailbox.waitFor(taken, 'You are invited');
  expect(note.text).toContain('already has an account');
  expect(note.text).not.toContain('token=');
  expect((await sidewaysScrollingAcross(page)).map(([width, found]) => [width, found.filter((s) => s.startsWith('page '))])).toEqual(NOTHING_SCROLLS);
  await expectAccessible('team-invitations');
});

test('"Edit person": the admin changes the member\'s permissions; the last active admin cannot be demoted', async () => {
  await page.goto(`${srv.url}/console/team`);
  await page.getByRole('link', { name: `Edit ${member.email}` }).click();
  await page.getByRole('heading', { level: 1, name: 'Edit person' }).waitFor();
  await expectAccessible('team-edit');
  await page.getByLabel('jobs.v1:read', { exact: true }).check();
  await submitWith(page, 'Save');
  await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
  expect(await page.getByRole('status').innerText()).toBe(`Saved: ${member.email}'s role and permissions are changed.`);
  expect(await page.getByRole('row').filter({ hasText: member.email }).innerText()).toContain('jobs.v1:read');
  expect((await srv.deps.stores.users.findUser(member.userId))?.permissions.sort()).toEqual(['candidates.search', 'jobs.v1:read']);

  await page.goto(`${srv.url}/console/team/${admin.userId}`);
  await page.getByLabel('Role', { exact: true }).selectOption({ label: 'Member' });
  await submitWith(page, 'Save');
  await page.getByRole('heading', { level: 1, name: 'Edit person' }).waitFor();
  expect(await page.getByRole('alert').innerText()).toContain('last active admin');
  expect((await srv.deps.stores.users.findUser(admin.userId))?.role).toBe('admin');
});

test('"Disable person" signs the member out at once; every change is in the audit log as the admin', async () => {
  await page.goto(`${srv.url}/console/team/${member.userId}`);
  page.once('dialog', (d) => void d.accept());
  await submitWith(page, 'Disable person');
  await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
  expect(await page.getByRole('row').filter({ hasText: member.email }).innerText()).toContain('disabled');
  await memberPage.goto(`${srv.url}/console/overview`);
  expect(new URL(memberPage.url()).pathname).toBe('/api/oauth/signin');

  const entries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { actor: `user:${admin.userId}`, limit: 100 })).data;
  expect(entries.map((e) => e.action).sort()).toEqual(
    [
      // "Create an API key", "Select all" and the form completed after the password.
      'key.created',
      'key.created',
      'key.created',
      'key.revoked',
      'key.rotated',
      'organization.updated',
      'user.disabled',
      'user.updated',
      ...Array<string>(5).fill('user.invited'),
    ].sort(),
  );
  // No secret reaches an entry: not the keys, not the setup link.
  const text = JSON.stringify(entries);
  expect(text).not.toContain(firstKey);
  expect(text).not.toContain(secondKey);
  expect(text).not.toContain('ust_');
});

test("the operator's `key rotate` runs the same rotation: with --old-key-seconds 0 the old key is refused at once", async () => {
  const current = (await keysOf(tenant.orgId)).find((k) => k.name === 'Console e2e key' && !k.revokedAt);
  const r = await adminCli(srv, 'key', 'rotate', '--key-id', current!._id, '--old-key-seconds', '0');
  expect(r.status).toBe(0);
  expect(r.json).toMatchObject({ replaced_key_id: current!._id, name: 'Console e2e key' });
  expect(await whoamiStatus(secondKey)).toBe(401);
  expect(await whoamiStatus(r.json.key)).toBe(200);
  const [entry] = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'key.rotated', actor: 'operator' })).data;
  expect(entry?.target).toBe(current!._id);
});

test("every console page is no-store under a CSP of 'self' only; a POST without its CSRF token changes nothing", async () => {
  for (const path of ['/console/overview', '/console/keys', '/console/team', '/console/keys/new', '/console/team/invite', '/api/oauth/connections']) {
    const res = await page.request.get(`${srv.url}${path}`, { maxRedirects: 0 });
    expect([path, res.status()]).toEqual([path, 200]);
    expect(res.headers()['cache-control']).toBe('no-store');
    const csp = res.headers()['content-security-policy'];
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  }
  const css = await page.request.get(`${srv.url}/console/assets/console.css`);
  expect(css.headers()['content-type']).toContain('text/css');

  const keysBefore = (await keysOf(tenant.orgId)).length;
  const forged = await page.request.post(`${srv.url}/console/keys/new`, {
    form: { name: 'Forged', workspace: tenant.workspaceId, scopes: 'candidates.search', expires: 'never' },
    maxRedirects: 0,
  });
  expect(forged.status()).toBe(403);
  expect(await forged.text()).toContain('Form expired');
  expect((await keysOf(tenant.orgId)).length).toBe(keysBefore);
});

test('"API keys" pages by 50, newest first, with "Next page" and "Previous page"', async () => {
  for (let i = 0; i < 55; i++) {
    await createApiKey(srv.deps.stores, {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      name: `Paging key ${i}`,
      scopes: ['candidates.search'],
      audience: 'developer-api',
    });
  }
  const total = (await keysOf(tenant.orgId)).length;
  await page.goto(`${srv.url}/console/keys`);
  // The header row, then one row per key.
  expect(await page.getByRole('row').count()).toBe(51);
  expect(await page.getByRole('row').nth(1).innerText()).toContain('Paging key 54');
  await page.getByRole('link', { name: 'Next page' }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  expect(await page.getByRole('row').count()).toBe(total - 50 + 1);
  expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
  expect(await page.getByRole('link', { name: 'Previous page' }).count()).toBe(1);
});

test('"Sign out" ends the session: the console asks to sign in again', async () => {
  await page.goto(`${srv.url}/console/overview`);
  await submitWith(page, 'Sign out');
  await page.goto(`${srv.url}/console/overview`);
  expect(new URL(page.url()).pathname).toBe('/api/oauth/signin');
});
