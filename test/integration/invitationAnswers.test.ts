import { listAuditEvents } from '../../core/audit/auditLog';
import { Invitation, User } from '../../core/users/models';
import { createUser } from '../../core/users/users';
import { consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';

/**
 * No oracle in invitations (DECISIONS.md "Team"): inviting an address that has an account
 * anywhere (in any letter case, with surrounding spaces) answers exactly as inviting a new one:
 * the same status and the same page bytes apart from the address, the invitation's ids and its
 * link; both invitations are stored pending and listed as "Invitation pending"; the audit log
 * reads the same.
 */
let srv: TestApi;
let tenant: TestTenant;
let admin: ConsoleSession;
const stamp = Date.now().toString(36);
const taken = `taken.${stamp}@example.com`;

beforeAll(async () => {
  srv = await startSignInApi();
  tenant = await createTenant();
  admin = await consoleSession(srv, tenant, 'admin', ['candidates.search', 'jobs.v1:read']);
  const elsewhere = await createTenant();
  await createUser(srv.config, { orgId: elsewhere.orgId, workspaceId: elsewhere.workspaceId, email: taken, permissions: ['jobs.v1:read'] });
});
afterAll(async () => srv?.close());

function invite(email: string) {
  return admin.post('/console/team/invite', [
    ['email', email],
    ['role', 'member'],
    ['permissions', 'jobs.v1:read'],
  ]);
}

/** The answer with what differs between any two invitations taken out: the address, the link's token, the expiry's time of day. */
function normalized(page: string, email: string): string {
  return page
    .split(email)
    .join('EMAIL')
    .replace(/token=ust_[0-9A-Za-z]+/g, 'token=TOKEN')
    .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?( UTC|Z)?/g, 'TIME');
}

test.each([
  ['the same letters', (e: string) => e],
  ['upper case and spaces', (e: string) => `  ${e.toUpperCase()} `],
])('an address with an account elsewhere (%s) answers byte for byte as a new one; both are pending', async (_variant, spelled) => {
  const fresh = `fresh.${Math.random().toString(36).slice(2)}.${stamp}@example.com`;
  const usedAnswer = await invite(spelled(taken));
  const freshAnswer = await invite(fresh);
  expect(usedAnswer.status).toBe(201);
  expect(freshAnswer.status).toBe(201);
  expect(usedAnswer.text).toContain('<h1>Invitation created</h1>');
  expect(normalized(usedAnswer.text, taken)).toBe(normalized(freshAnswer.text, fresh));
  expect([...usedAnswer.headers.keys()].sort()).toEqual([...freshAnswer.headers.keys()].sort());

  // Both are stored pending, for a mail step to act on; only the new address got an account.
  const used = await Invitation.findOne({ orgId: tenant.orgId, email: taken }).sort({ createdAt: -1 }).lean();
  const made = await Invitation.findOne({ orgId: tenant.orgId, email: fresh }).lean();
  expect(used).toMatchObject({ state: 'pending', userId: null, mailedAt: null });
  expect(made).toMatchObject({ state: 'pending', userId: expect.stringMatching(/^usr_/), mailedAt: null });
  expect(await User.countDocuments({ email: taken })).toBe(1);

  // The Team page lists both the same way.
  const team = await admin.get('/console/team');
  const rowOf = (email: string) => normalized((team.text.split('<tr>').find((r) => r.includes(`<td>${email}</td>`)) ?? '').split('</tr>')[0], email);
  expect(rowOf(taken)).toContain('<td>Invitation pending</td>');
  expect(rowOf(taken)).toBe(rowOf(fresh));

  // So does the audit log: the invitation is the target, never an account.
  const [freshEntry, usedEntry] = (await listAuditEvents(srv.config, tenant.orgId, { action: 'user.invited' })).data;
  expect(Object.keys(usedEntry.after ?? {}).sort()).toEqual(Object.keys(freshEntry.after ?? {}).sort());
  expect(usedEntry.target).toMatch(/^inv_/);
  expect(freshEntry.target).toMatch(/^inv_/);
});

test('the new address sets a password through its link and joins; its invitation is then accepted', async () => {
  const fresh = `joins.${stamp}@example.com`;
  const answer = await invite(fresh);
  const link = /<code id="new-secret"[^>]*>([^<]+)<\/code>/.exec(answer.text)![1].replace(/&amp;/g, '&');
  const setup = new URL(link);
  const page = await admin.browser.request(setup.pathname + setup.search);
  expect(page.status).toBe(200);
  const token = setup.searchParams.get('token')!;
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)![1];
  const done = await fetch(`${srv.url}/api/oauth/setup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: [...admin.browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    body: new URLSearchParams({ csrf_token: csrf, token, new_password: 'a long enough password 123', confirm_password: 'a long enough password 123' }),
    redirect: 'manual',
  });
  expect(done.status).toBe(200);
  expect((await Invitation.findOne({ email: fresh }).lean())!.state).toBe('accepted');
  const team = await admin.get('/console/team');
  // The person's row (the people table shows the email above the id), and no pending invitation's row.
  const rows = team.text
    .split('<tr>')
    .slice(1)
    .map((r) => r.split('</tr>')[0])
    .filter((r) => r.includes(fresh));
  expect(rows).toHaveLength(1);
  expect(rows[0]).toContain('data-label="Email"');
  expect(rows[0]).not.toContain('Invitation pending');
});
