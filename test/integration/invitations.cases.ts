import { listAuditEvents } from '../../core/audit/auditLog';
import { postConsoleForm, setPasswordThrough, signedInPerson, signInOnPage, PASSWORD } from '../support/accountForms';
import { createTenant, type TestTenant } from '../support/fixtures';
import { FormBrowser } from '../support/formBrowser';
import type { FormPerson } from '../support/formSignIn';
import { eventually } from '../support/eventually';
import { linkIn, Mailbox } from '../support/mailbox';
import { startSignInApi, uniqueEmail } from '../support/signInApi';
import type { TestApi } from '../support/testApi';

// Invitations by mail through the console's forms, read from a real SMTP receiver.
let srv: TestApi;
let mailbox: Mailbox;
let tenant: TestTenant;
let admin: FormPerson;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  srv = await startSignInApi({ SMTP_URL: mailbox.smtpUrl, MAIL_SENDER_INTERVAL_MS: '50', MAIL_RETRY_MAX_DELAY_MS: '200' });
  tenant = await createTenant();
  admin = await signedInPerson(srv, tenant, { role: 'admin', permissions: ['candidates.search', 'jobs.v1:read'] });
});
afterAll(async () => {
  await srv?.close();
  await mailbox?.stop();
});

function invite(email: string) {
  return postConsoleForm(admin.browser, '/console/team/invite', '/console/team/invite', { email, role: 'member', permissions: 'candidates.search' });
}

const linkPrefix = () => `${srv.url}/api/oauth/setup?token=`;

test('a mail server that is down while an invitation is sent: the mail arrives once after it returns', async () => {
  const email = uniqueEmail('outage');
  await mailbox.pause();
  const answer = await invite(email);
  expect(answer).toMatchObject({ status: 303, location: '/console/team?done=invited' });
  // The sender tried and failed twice while the server was down; the mail waits.
  const waiting = await eventually('two failed attempts', async () => {
    const [entry] = await srv.deps.stores.mail.outboxMailTo(email);
    return entry && entry.attempts >= 2 ? entry : undefined;
  });
  expect(waiting.sentAt).toBeNull();
  await mailbox.resume();
  const mail = await mailbox.waitFor(email, 'You are invited');
  expect(mail.text).toContain(admin.email);
  // Ten more passes of the sender (MAIL_SENDER_INTERVAL_MS 50): still exactly one mail.
  await new Promise((r) => setTimeout(r, 500));
  expect(mailbox.to(email)).toHaveLength(1);
  // The link sets the password and signs nobody in by itself; the person then signs in.
  const person = new FormBrowser(srv.url);
  expect((await setPasswordThrough(person, linkIn(mail, linkPrefix()), PASSWORD)).status).toBe(200);
  expect((await signInOnPage(person, email, PASSWORD)).location).toBe('/console/overview');
  expect(await srv.deps.stores.users.newestInvitationTo(email)).toMatchObject({ status: 'accepted' });
});

test('inviting an address that has an account answers exactly as for a new one; that address is told by mail, with no link', async () => {
  const elsewhere = await createTenant();
  const existing = await signedInPerson(srv, elsewhere, { email: uniqueEmail('taken') });
  const fresh = uniqueEmail('fresh');
  const [a, b] = [await invite(existing.email), await invite(fresh)];
  expect({ status: a.status, location: a.location, text: a.text }).toEqual({ status: b.status, location: b.location, text: b.text });
  const team = await admin.browser.request('/console/team?done=invited');
  for (const email of [existing.email, fresh]) expect(team.text).toMatch(new RegExp(`${email.replace(/[.]/g, '\\.')}</td>[\\s\\S]*?Invitation pending`));
  const note = await mailbox.waitFor(existing.email, 'You are invited');
  expect(note.text).toContain('already has an account');
  expect(note.text).not.toContain('token=');
  await mailbox.waitFor(fresh, 'You are invited');
  // The existing account is untouched: same organization, still signs in.
  expect(await srv.deps.stores.users.findUserWithEmail(existing.email)).toMatchObject({ orgId: elsewhere.orgId });
  expect((await signInOnPage(new FormBrowser(srv.url), existing.email, PASSWORD)).status).toBe(303);
});

test('"Resend invitation" mails a new link and the earlier one stops working; "Cancel invitation" ends the last; both audited without a link', async () => {
  const email = uniqueEmail('resend');
  await invite(email);
  const first = linkIn(await mailbox.waitFor(email, 'You are invited'), linkPrefix());
  const invitation = await srv.deps.stores.users.newestInvitationTo(email);
  const resent = await postConsoleForm(admin.browser, '/console/team', `/console/team/invitations/${invitation!._id}/resend`, {});
  expect(resent).toMatchObject({ status: 303, location: '/console/team?done=resent' });
  expect((await admin.browser.request(resent.location!)).text).toContain('Invitation sent again');
  const mails = await eventually('the second invitation mail', () => mailbox.to(email).length === 2 && mailbox.to(email));
  const second = linkIn(mails[1], linkPrefix());
  expect(second).not.toBe(first);
  expect((await new FormBrowser(srv.url).request(new URL(first).pathname + new URL(first).search)).status).toBe(400);

  const cancelled = await postConsoleForm(admin.browser, '/console/team', `/console/team/invitations/${invitation!._id}/cancel`, {});
  expect(cancelled).toMatchObject({ status: 303, location: '/console/team?done=cancelled' });
  expect((await new FormBrowser(srv.url).request(new URL(second).pathname + new URL(second).search)).status).toBe(400);
  expect(await srv.deps.stores.users.findUserWithEmail(email)).toBeNull();
  // Cancelled is final: a second cancel or a resend changes nothing.
  expect((await postConsoleForm(admin.browser, '/console/team', `/console/team/invitations/${invitation!._id}/resend`, {})).status).toBe(409);

  const entries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { actor: `user:${admin.userId}` })).data.filter(
    (e) => e.target === invitation!._id,
  );
  expect(entries.map((e) => e.action)).toEqual(['user.invitation_cancelled', 'user.invitation_resent', 'user.invited']);
  expect(entries[0].after).toMatchObject({ email, status: 'cancelled', role: 'member' });
  expect(JSON.stringify(entries)).not.toMatch(/token|ust_|user_id/);
});

test("another organization's invitation reads as absent", async () => {
  const other = await signedInPerson(srv, await createTenant(), { role: 'admin' });
  const email = uniqueEmail('foreign');
  await invite(email);
  const invitation = await srv.deps.stores.users.newestInvitationTo(email);
  const refused = await postConsoleForm(other.browser, '/console/team', `/console/team/invitations/${invitation!._id}/cancel`, {});
  expect(refused.status).toBe(404);
  expect(await srv.deps.stores.users.newestInvitationTo(email)).toMatchObject({ status: 'pending' });
});
