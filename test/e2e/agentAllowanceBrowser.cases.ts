import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cookieSettings } from '../../api/views/pageSecurity';
import { recordConfirmation } from '../../core/users/sudoMode';
import { closeBrowser, launchBrowser } from '../support/browser';
import { BrowserOAuthProvider } from '../support/browserOAuthProvider';
import { seriousAxeViolations, sidewaysScrolling } from '../support/consoleBrowser';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startLoopbackRedirect, type LoopbackRedirect } from '../support/loopbackRedirect';
import { createUserWithCli, startSignInApi, uniqueEmail, type CreatedUser } from '../support/signInApi';
import { setPasswordOverHttp, submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * A person connects an MCP client (the MCP SDK's own OAuth support) choosing "Spend up to a
 * daily allowance" of 10 credits; unlocks (5 credits each) succeed until 10 credits, the next is
 * a tool error naming the allowance with nothing charged; raising the allowance on Connected
 * applications asks for the password (sudo mode), and then the call succeeds. Settings' "AI
 * applications" section sets the organization's policy. Pages are checked with axe and for
 * sideways scrolling at 375, 1,280 and 1,440 px.
 */
const PASSWORD = 'a long enough password 4 allowances';
const CLIENT_NAME = 'Allowance Agent with a rather long application name for narrow screens';

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let loopback: LoopbackRedirect;
let person: CreatedUser;
const people = Array.from({ length: 4 }, () => `per_allow${randomBytes(6).toString('hex')}`);

beforeAll(async () => {
  loopback = await startLoopbackRedirect();
  srv = await startSignInApi();
  tenant = await createTenant({ credits: 100 });
  await insertTestPeople(srv.deps.stores, people);
  browser = await launchBrowser();
  person = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: uniqueEmail('allowance'),
    permissions: ['profiles.v1:unlock', 'candidates.search'],
    role: 'admin',
  });
  expect(await setPasswordOverHttp(person.setupUrl, PASSWORD)).toBeLessThan(400);
});
afterAll(async () => {
  await closeBrowser(browser);
  await loopback?.close();
  await srv?.close();
});

let context: BrowserContext;
beforeAll(async () => {
  context = await browser.newContext();
});
afterAll(async () => context?.close());

async function connect(provider: BrowserOAuthProvider): Promise<Client> {
  const url = new URL(`${srv.url}/tools`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const refused = await new Client({ name: 'allowance-e2e', version: '1.0.0' }).connect(first).catch((err: Error) => err);
  if (!(refused instanceof UnauthorizedError)) throw refused;
  await first.finishAuth(provider.codeFromCallback(srv.url));
  await first.close();
  const client = new Client({ name: 'allowance-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return client;
}

async function charged(): Promise<number> {
  return (await srv.deps.stores.credits.ledgerEntriesOfOrgs([tenant.orgId])).filter((e) => e.kind === 'charge').reduce((sum, e) => sum + e.amount, 0);
}

/**
 * Nothing scrolls sideways (`except`: what the page lets scroll within its own frame by design) and
 * axe finds nothing serious at a phone's and two desktops' widths; screenshots with CONSOLE_SHOTS.
 */
async function checkWidths(page: Page, name: string, except: (found: string) => boolean = () => false): Promise<void> {
  for (const width of [375, 1280, 1440]) {
    expect({ width, scrolls: (await sidewaysScrolling(page, width)).filter((s) => !except(s)) }).toEqual({ width, scrolls: [] });
    if (process.env.CONSOLE_SHOTS) {
      mkdirSync('/tmp/console-shots', { recursive: true });
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `/tmp/console-shots/${name}-${width}.png`, fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  expect(await seriousAxeViolations(page)).toEqual([]);
}

/** Makes the password older than sudo mode's 15 minutes in this browser, so the next sensitive change asks for it. */
async function ageTheConfirmation(): Promise<void> {
  const cookie = (await context.cookies()).find((c) => c.name === cookieSettings(srv.config).name);
  expect(cookie).toBeDefined();
  await recordConfirmation(srv.deps.stores, cookie!.value, new Date(Date.now() - 20 * 60_000));
}

test('a daily allowance of 10 chosen at consent: two unlocks, then a tool error naming it with nothing charged; raised with the password, the call succeeds', async () => {
  const page = await context.newPage();
  let consentChecked = false;
  const provider = new BrowserOAuthProvider(page, loopback, { email: person.email, password: PASSWORD }, CLIENT_NAME, {
    onConsent: async (consent) => {
      expect(await consent.getByRole('group', { name: 'This application may' }).isVisible()).toBe(true);
      expect(await consent.getByLabel('Only read').isVisible()).toBe(true);
      // The default policy has a largest allowance: no "without a daily allowance".
      expect(await consent.getByLabel('Spend without a daily allowance').count()).toBe(0);
      await checkWidths(consent, 'allowance-consent');
      await consent.getByLabel('Spend up to a daily allowance').check();
      await consent.getByLabel('Credits a day').fill('10');
      consentChecked = true;
    },
  });
  const client = await connect(provider);
  expect(consentChecked).toBe(true);

  const unlock = (personId: string) => client.callTool({ name: 'unlock_profile', arguments: { person_id: personId } });
  expect((await unlock(people[0])).isError).toBeFalsy();
  expect((await unlock(people[1])).isError).toBeFalsy();
  expect(await charged()).toBe(10);
  const refused = await unlock(people[2]);
  expect(refused.isError).toBe(true);
  expect(refused.structuredContent).toMatchObject({ code: 'agent_allowance_exhausted', daily_allowance: 10, allowance_remaining: 0, required_credits: 5 });
  expect(JSON.stringify(refused.content)).toContain('may spend 10 credit(s) a day');
  expect(JSON.stringify(refused.content)).toContain('Connected applications');
  expect(await charged()).toBe(10);

  await page.goto(`${srv.url}/api/oauth/connections`);
  const row = page.getByRole('row').filter({ hasText: CLIENT_NAME });
  expect(await row.innerText()).toMatch(/10 credits a day[\s\S]*10 credits[\s\S]*10 credits/);
  await checkWidths(page, 'allowance-connections');

  await ageTheConfirmation();
  await row.getByRole('link', { name: 'Change allowance' }).click();
  await page.waitForURL(/\/allowance$/);
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Change allowance');
  await checkWidths(page, 'allowance-change');
  await page.getByLabel('Credits a day').fill('20');
  await submitWith(page, 'Save allowance');
  // Raising needs the password again; what was typed comes back after it.
  expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Confirm your password');
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await submitWith(page, 'Confirm');
  expect(await page.getByLabel('Credits a day').inputValue()).toBe('20');
  await submitWith(page, 'Save allowance');
  expect(await page.getByRole('status').innerText()).toContain('The allowance is saved');
  expect(await page.getByRole('row').filter({ hasText: CLIENT_NAME }).innerText()).toContain('20 credits a day');

  const retried = await unlock(people[2]);
  expect(retried.isError).toBeFalsy();
  expect(await charged()).toBe(15);
  const entry = (await srv.deps.stores.credits.ledgerEntriesOfOrgs([tenant.orgId])).find((e) => e.kind === 'charge');
  expect(entry).toMatchObject({ agentClientName: CLIENT_NAME });

  // The Usage page splits the spend by connected application.
  await srv.flushUsage();
  await page.goto(`${srv.url}/console/usage`);
  const spendRow = page.getByRole('table', { name: 'Spend by connected application' }).getByRole('row').filter({ hasText: CLIENT_NAME });
  expect(await spendRow.innerText()).toMatch(/\b15\b/);
  // The charts and the ledger scroll within their frames on a phone; the new table stacks instead.
  await checkWidths(page, 'allowance-usage', (s) => s.startsWith('figure.chart') || (s.startsWith('div.table-wrap ') && !s.includes('stacking')));

  const audit = await api(srv.url, 'GET', '/v1/audit-events?action=grant.allowance_changed', { key: tenant.key });
  expect(audit.json.data[0]).toMatchObject({
    actor: `user:${person.userId}`,
    before: { allowance: 'daily', daily_credits: 10, client_name: CLIENT_NAME },
    after: { allowance: 'daily', daily_credits: 20 },
  });
  await client.close();
});

test('Settings, "AI applications": a refused policy keeps what was typed; a saved one is audited and bounds the consent page', async () => {
  const page = await context.newPage();
  await page.goto(`${srv.url}/console/settings`);
  expect(await page.getByRole('heading', { level: 2, name: 'AI applications' }).isVisible()).toBe(true);
  await page.getByLabel('Default daily allowance').fill('30');
  await page.getByLabel('Largest daily allowance').fill('20');
  await page.getByLabel('AI applications may').selectOption({ label: 'Spend within an allowance' });
  await submitWith(page, 'Save AI application policy');
  expect(await page.getByRole('alert').innerText()).toContain('cannot exceed the largest daily allowance');
  expect(await page.getByLabel('Default daily allowance').inputValue()).toBe('30');
  expect(await page.getByLabel('Largest daily allowance').inputValue()).toBe('20');

  await page.getByLabel('Default daily allowance').fill('15');
  await page.getByLabel('Largest daily allowance').fill('');
  await submitWith(page, 'Save AI application policy');
  expect(await page.getByRole('status').innerText()).toContain('The AI application policy is saved');
  expect(await page.getByLabel('Default daily allowance').inputValue()).toBe('15');
  await checkWidths(page, 'allowance-settings');

  const audit = await api(srv.url, 'GET', '/v1/audit-events?action=agent_policy.updated', { key: tenant.key });
  expect(audit.json.data[0]).toMatchObject({ after: { mode: 'spend', default_daily_credits: 15, max_daily_credits: null } });

  // With no largest allowance, consent offers spending without one, and proposes the new default.
  let offered: { unlimited: number; credits: string } | undefined;
  const provider = new BrowserOAuthProvider(await context.newPage(), loopback, { email: person.email, password: PASSWORD }, 'Second Agent', {
    onConsent: async (consent) => {
      offered = {
        unlimited: await consent.getByLabel('Spend without a daily allowance').count(),
        credits: await consent.getByLabel('Credits a day').inputValue(),
      };
      await consent.getByLabel('Only read').check();
    },
  });
  const client = await connect(provider);
  expect(offered).toEqual({ unlimited: 1, credits: '15' });
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).not.toContain('unlock_profile');
  expect(tools.every((t) => t.annotations?.readOnlyHint)).toBe(true);
  await client.close();
});
