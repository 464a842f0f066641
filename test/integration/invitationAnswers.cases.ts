import { listAuditEvents } from '../../core/audit/auditLog';
import { createUser } from '../../core/users/users';
import { consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { createTenant, type TestTenant } from '../support/fixtures';
import { linkIn, Mailbox } from '../support/mailbox';
import { startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';
import { fileStores } from '../support/testStore';

/**
 * No oracle in invitations (DECISIONS.md "Team"): inviting an address that has an account
 * anywhere (in any letter case, with surrounding spaces) answers exactly as inviting a new one:
 * the same status, headers and bytes (the invitation is mailed, so the answer holds no link);
 * both invitations are stored pending and listed as "Invitation pending" with the same row apart
 * from the address and the invitation's id; the audit log reads the same. Only the mail differs:
 * the new address gets a link, the address in use a note that it was invited, without one.
 */
let srv: TestApi;
let mailbox: Mailbox;
let tenant: TestTenant;
let admin: ConsoleSession;
const stamp = Date.now().toString(36);
const taken = `taken.${stamp}@example.com`;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  srv = await startSignInApi({ SMTP_URL: mailbox.smtpUrl, MAIL_SENDER_INTERVAL_MS: '50' });
  tenant = await createTenant();
  admin = await consoleSession(srv, tenant, 'admin', ['candidates.search', 'jobs.v1:read']);
  const elsewhere = await createTenant();
  await createUser(
    fileStores(),
    srv.config,
    { orgId: elsewhere.orgId, workspaceId: elsewhere.workspaceId, email: taken, permissions: ['jobs.v1:read'] },
    new Date(),
  );
});
afterAll(async () => {
  await srv?.close();
  await mailbox?.stop();
});

function invite(email: string) {
  return admin.post('/console/team/invite', [
    ['email', email],
    ['role', 'member'],
    ['permissions', 'jobs.v1:read'],
  ]);
}

/** A page with what differs between any two invitations taken out: the address, the invitation's id, a time of day. */
function normalized(page: string, email: string): string {
  return page
    .split(email)
    .join('EMAIL')
    .replace(/inv_[0-9A-Za-z]+/g, 'INVITATION')
    .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?( UTC|Z)?/g, 'TIME');
}

/** The normalized headers of an answer, without the ones that differ per request (date, cookies' values). */
function headersOf(answer: { headers: Headers }): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of answer.headers) if (!['date', 'set-cookie', 'x-request-id', 'keep-alive'].includes(name)) kept[name] = value;
  return kept;
}

test.each([
  ['the same letters', (e: string) => e],
  ['upper case and spaces', (e: string) => `  ${e.toUpperCase()} `],
])('an address with an account elsewhere (%s) answers byte for byte as a new one; both are pending', async (_variant, spelled) => {
  const fresh = `fresh.${Math.random().toString(36).slice(2)}.${stamp}@example.com`;
  const usedAnswer = await invite(spelled(taken));
  const freshAnswer = await invite(fresh);
  expect(usedAnswer.status).toBe(303);
  expect(usedAnswer.location).toBe('/console/team?done=invited');
  // The answers compared as the original test did: the same bytes apart from address/ids (here there are none to take out).
  expect(normalized(usedAnswer.text, taken)).toBe(normalized(freshAnswer.text, fresh));
  expect({ status: usedAnswer.status, location: usedAnswer.location, text: usedAnswer.text }).toEqual({
    status: freshAnswer.status,
    location: freshAnswer.location,
    text: freshAnswer.text,
  });
  expect([...usedAnswer.headers.keys()].sort()).toEqual([...freshAnswer.headers.keys()].sort());
  expect(headersOf(usedAnswer)).toEqual(headersOf(freshAnswer));

  // Both are stored pending; only the new address got an account.
  const used = await srv.deps.stores.users.newestInvitationTo(taken, tenant.orgId);
  const made = await srv.deps.stores.users.newestInvitationTo(fresh, tenant.orgId);
  expect(used).toMatchObject({ status: 'pending', userId: null });
  expect(made).toMatchObject({ status: 'pending', userId: expect.stringMatching(/^usr_/) });
  expect(await srv.deps.stores.users.findUserWithEmail(taken)).not.toBeNull();

  // The Team page lists both the same way, "Invitation pending" with "Resend invitation" and "Cancel invitation".
  const team = await admin.get('/console/team?done=invited');
  expect(team.text).toContain('Invitation sent.');
  const rowOf = (email: string) => normalized((team.text.split('<tr>').find((r) => r.includes(`>${email}</td>`)) ?? '').split('</tr>')[0], email);
  expect(rowOf(taken)).toContain(`>Invitation pending<br /><span class="note">invited by ${admin.email}</span></td>`);
  expect(rowOf(taken)).toContain('Resend invitation');
  expect(rowOf(taken)).toContain('Cancel invitation');
  expect(rowOf(taken)).toBe(rowOf(fresh));

  // Only the mail differs: a link for the new address, a note without one for the address in use.
  const freshMail = await mailbox.waitFor(fresh, 'You are invited');
  expect(linkIn(freshMail, `${srv.url}/api/oauth/setup?token=`)).toMatch(/token=/);
  const usedMail = (await mailbox.waitFor(taken, 'You are invited')).text;
  expect(usedMail).toContain('already has an account');
  expect(usedMail).not.toContain('token=');

  // So does the audit log: the invitation is the target, never an account.
  const [freshEntry, usedEntry] = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'user.invited' })).data;
  expect(Object.keys(usedEntry.after ?? {}).sort()).toEqual(Object.keys(freshEntry.after ?? {}).sort());
  expect(usedEntry.target).toMatch(/^inv_/);
  expect(freshEntry.target).toMatch(/^inv_/);
});

test('the new address sets a password through its mailed link and joins; its invitation is then accepted', async () => {
  const fresh = `joins.${stamp}@example.com`;
  expect((await invite(fresh)).status).toBe(303);
  const link = linkIn(await mailbox.waitFor(fresh, 'You are invited'), `${srv.url}/api/oauth/setup?token=`);
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
  expect((await srv.deps.stores.users.newestInvitationTo(fresh))!.status).toBe('accepted');
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
