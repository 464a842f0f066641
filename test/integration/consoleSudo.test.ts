import { authenticator } from 'otplib';
import { allAuditEvents } from '../../core/audit/auditLog';
import { newId } from '../../core/ids';
import { createApiKey } from '../../core/keys/apiKeys';
import { PASSKEY_NOT_ACCEPTED, passkeyCountOf } from '../../core/users/passkeyCeremonies';
import { relyingPartyOf } from '../../core/users/passkeys';
import { SUDO_WINDOW_MS } from '../../core/users/sudoMode';
import { createUser } from '../../core/users/users';
import { SUDO_OPERATIONS } from '../../api/console/sudoOperations';
import type { ConsoleOperationName } from '../../api/console/consoleOperationNames';
import { CONSOLE_TEST_PASSWORD, consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';
import { TestClock } from '../support/testClock';
import { enrolSoftPasskey } from '../support/softAuthenticator';
import { fileStores } from '../support/testStore';

/**
 * Sudo mode on every lasting access (DECISIONS.md "Sudo mode"): with the password last confirmed
 * more than 15 minutes ago on the app's clock, each write of api/console/sudoOperations.ts lands
 * on "Confirm your password" and changes nothing; the page holds what was posted, and after the
 * password the browser posts it again (307) and the change is made as it was typed.
 */
let srv: TestApi;
let receiver: HttpsReceiver;
let tenant: TestTenant;
let admin: ConsoleSession;
const clock = new TestClock();
/** A second workspace, whose endpoint is re-pointed and rotated. */
let otherWorkspace = '';
let endpointId = '';
let keyId = '';
let personId = '';
let passkeyId = '';

/** Moves the app's clock past the sudo window of every confirmation so far (sign-ins use the real time). */
function expireSudo(): void {
  clock.advance(Math.max(clock.now(), Date.now()) + SUDO_WINDOW_MS + 60_000 - clock.now());
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  srv = await startSignInApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile }, { now: clock.now });
  tenant = await createTenant();
  admin = await consoleSession(srv, tenant, 'admin', ['candidates.search', 'jobs.v1:read']);
  // Just signed in: the app's clock reads the sign-in's time.
  clock.advance(Date.now() - clock.now());
  // The admin has an authenticator app, so its two sudo writes (new recovery codes, turning it off) have something to act on.
  const setup = await admin.get('/console/security/authenticator-app');
  const secret = /<code id="totp-secret"[^>]*>([A-Z2-7]+)<\/code>/.exec(setup.text)![1];
  const turnedOn = await admin.post('/console/security/authenticator-app', { code: authenticator.clone({ epoch: clock.now() }).generate(secret) });
  expect(turnedOn.text).toContain('<h1>Your recovery codes</h1>');
  otherWorkspace = newId('ws');
  await fileStores().tenancy.insertWorkspace({ _id: otherWorkspace, orgId: tenant.orgId, name: 'Second' });
  const registered = await admin.post('/console/webhooks', { workspace: otherWorkspace, url: `${receiver.url}/first` });
  expect(registered.text).toContain('<h1>Your new signing secret</h1>');
  endpointId = (await fileStores().webhooks.endpoints.endpointsOfWorkspace(otherWorkspace))[0]._id;
  keyId = (
    await createApiKey(fileStores(), {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      name: 'To rotate',
      scopes: ['candidates.search'],
      audience: 'developer-api',
    })
  ).key_id;
  personId = (
    await createUser(
      fileStores(),
      srv.config,
      {
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        email: `p${Date.now()}@example.com`,
        permissions: ['jobs.v1:read'],
      },
      new Date(),
    )
  ).user_id;
  passkeyId = (await enrolSoftPasskey(srv.config.authUrl, admin.userId, 'Old phone')).passkeyId;
});
afterAll(async () => {
  await srv?.close();
  await receiver?.close();
});

function unescapeHtml(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The hidden fields of a page, in order (several of one name stay several). */
function hiddenFields(page: string): [string, string][] {
  return [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)" \/>/g)].map((m) => [m[1], unescapeHtml(m[2])]);
}

async function auditEntryCount(): Promise<number> {
  let n = 0;
  for await (const _ of allAuditEvents(srv.deps.stores, tenant.orgId)) n++;
  return n;
}

/** What an action may change, read straight from the store, with the organization's audit entries. */
async function storeState() {
  return {
    keys: (await fileStores().keys.keysOfOrg(tenant.orgId)).sort((a, b) => a._id.localeCompare(b._id)),
    people: (await srv.deps.stores.users.usersOfOrg(tenant.orgId)).sort((a, b) => a._id.localeCompare(b._id)),
    endpoints: await fileStores().webhooks.endpoints.endpointsOfOrganization(tenant.orgId),
    passkeys: await passkeyCountOf(srv.deps.stores, admin.userId),
    audit: await auditEntryCount(),
  };
}

interface SudoAction {
  operation: ConsoleOperationName;
  path: () => string;
  /** The form as the person filled it in. */
  form: () => [string, string][];
  /** The answer once the password was confirmed, and the change it made. */
  done: (answer: { status: number; text: string; location: string | null }) => Promise<void>;
}

const invitedEmail = `invited${Date.now()}@example.com`;

const ACTIONS: SudoAction[] = [
  {
    operation: 'console.keys.create',
    path: () => '/console/keys/new',
    form: () => [
      ['name', 'Made after confirming'],
      ['workspace', tenant.workspaceId],
      ['application', tenant.applicationId],
      ['scopes', 'candidates.search'],
      ['scopes', 'jobs.v1:read'],
      ['expires', '90d'],
    ],
    done: async (answer) => {
      expect(answer.status).toBe(201);
      expect(answer.text).toContain('<h1>Your new API key</h1>');
      const made = (await fileStores().keys.keysOfOrg(tenant.orgId)).find((k) => k.name === 'Made after confirming');
      expect(made?.scopes).toEqual(['candidates.search', 'jobs.v1:read']);
    },
  },
  {
    operation: 'console.keys.rotate',
    path: () => `/console/keys/${keyId}/rotate`,
    form: () => [['old_key_ends', '7d']],
    done: async (answer) => {
      expect(answer.status).toBe(201);
      const family = (await fileStores().keys.keysOfOrg(tenant.orgId)).filter((k) => k.name === 'To rotate');
      expect(family).toHaveLength(2);
    },
  },
  {
    operation: 'console.team.invite',
    path: () => '/console/team/invite',
    form: () => [
      ['email', invitedEmail],
      ['role', 'member'],
      ['permissions', 'jobs.v1:read'],
    ],
    done: async (answer) => {
      expect(answer.status).toBe(303);
      expect(answer.location).toBe('/console/team?done=invited');
      expect(await srv.deps.stores.users.newestInvitationTo(invitedEmail)).toMatchObject({ status: 'pending' });
    },
  },
  {
    operation: 'console.team.update',
    path: () => `/console/team/${personId}`,
    form: () => [
      ['role', 'admin'],
      ['permissions', 'jobs.v1:read'],
      ['permissions', 'candidates.search'],
    ],
    done: async (answer) => {
      expect(answer.status).toBe(303);
      const person = await srv.deps.stores.users.findUser(personId);
      expect(person).toMatchObject({ role: 'admin', permissions: ['jobs.v1:read', 'candidates.search'] });
    },
  },
  {
    operation: 'console.webhooks.register',
    path: () => '/console/webhooks',
    form: () => [
      ['workspace', tenant.workspaceId],
      ['url', `${receiver.url}/registered?after=confirming&x=1`],
    ],
    done: async (answer) => {
      expect(answer.text).toContain('<h1>Your new signing secret</h1>');
      const [made] = await fileStores().webhooks.endpoints.endpointsOfWorkspace(tenant.workspaceId);
      expect(made.url).toBe(`${receiver.url}/registered?after=confirming&x=1`);
    },
  },
  {
    operation: 'console.webhooks.update',
    path: () => `/console/webhooks/endpoints/${endpointId}`,
    form: () => [['url', `${receiver.url}/re-pointed`]],
    done: async (answer) => {
      expect(answer.status).toBe(303);
      expect((await fileStores().webhooks.endpoints.endpointById(endpointId))!.url).toBe(`${receiver.url}/re-pointed`);
    },
  },
  {
    operation: 'console.webhooks.rotate_secret',
    path: () => `/console/webhooks/endpoints/${endpointId}/rotate-secret`,
    form: () => [],
    done: async (answer) => {
      expect(answer.text).toContain('<h1>Your new signing secret</h1>');
      expect((await fileStores().webhooks.endpoints.endpointById(endpointId))!.rotationEndsAt).toBeTruthy();
    },
  },
  {
    operation: 'console.security.generate_recovery_codes',
    path: () => '/console/security/recovery-codes',
    form: () => [],
    done: async (answer) => {
      expect(answer.status).toBe(201);
      expect(answer.text).toContain('<h1>Your recovery codes</h1>');
    },
  },
  {
    operation: 'console.security.disable_authenticator_app',
    path: () => '/console/security/authenticator-app/remove',
    form: () => [],
    done: async (answer) => {
      expect(answer.status).toBe(303);
      expect((await srv.deps.stores.users.findUserWithEmail(admin.email))!.totpSecretSealed).toBeNull();
    },
  },
  {
    operation: 'console.passkeys.remove',
    path: () => `/console/security/passkeys/${passkeyId}/remove`,
    form: () => [['passkey_id', passkeyId]],
    done: async (answer) => {
      expect(answer.status).toBe(303);
      expect(answer.location).toBe('/console/security');
      expect(await passkeyCountOf(srv.deps.stores, admin.userId)).toBe(0);
    },
  },
];

test('the list of writes that need sudo mode is exactly the lasting accesses, and each has a test here', () => {
  expect(Object.keys(SUDO_OPERATIONS).sort()).toEqual(ACTIONS.map((a) => a.operation).sort());
});

describe.each(ACTIONS.map((a) => [a.operation, a] as const))('%s', (_name, action) => {
  test('with the password confirmed more than 15 minutes ago: "Confirm your password", nothing changed; after it, the change is made as typed', async () => {
    expireSudo();
    const before = await storeState();
    const asked = await admin.post(action.path(), action.form());
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<h1>Confirm your password</h1>');
    expect(await storeState()).toEqual(before);
    // The page holds the post: where it went and every field as typed.
    const held = hiddenFields(asked.text);
    expect(held).toContainEqual(['sudo_action', action.path()]);
    for (const field of action.form()) expect(held).toContainEqual(field);

    if (action === ACTIONS[0]) {
      // A wrong password keeps it too (once: failures count towards the sign-in's limits).
      const wrong = await admin.browser.request('/console/confirm', { form: new URLSearchParams([...held, ['password', 'not the password']]) });
      expect(wrong.status).toBe(401);
      expect(hiddenFields(wrong.text)).toEqual(held);
      expect(await storeState()).toEqual(before);
    }

    const confirmed = await admin.browser.request('/console/confirm', { form: new URLSearchParams([...held, ['password', CONSOLE_TEST_PASSWORD]]) });
    expect(confirmed.status).toBe(307);
    expect(confirmed.location).toBe(action.path());
    // What a browser does with a 307: the same body, posted again to the same place.
    const answer = await admin.browser.request(confirmed.location!, { form: new URLSearchParams([...held, ['password', CONSOLE_TEST_PASSWORD]]) });
    await action.done(answer);
    expect((await storeState()).audit).toBe(before.audit + 1);
  });
});

test('a form that needs sudo mode asks for the password when it is opened, and comes back to it after', async () => {
  expireSudo();
  for (const path of ['/console/keys/new', `/console/keys/${keyId}/rotate`, '/console/team/invite']) {
    const opened = await admin.get(path);
    expect(opened.status).toBe(303);
    expect(opened.location).toBe(`/console/confirm?return_to=${encodeURIComponent(path)}`);
  }
  const page = await admin.get('/console/confirm?return_to=%2Fconsole%2Fkeys%2Fnew');
  const confirmed = await admin.browser.request('/console/confirm', {
    form: new URLSearchParams([...hiddenFields(page.text), ['password', CONSOLE_TEST_PASSWORD]]),
  });
  expect(confirmed.status).toBe(303);
  expect(confirmed.location).toBe('/console/keys/new');
  expect((await admin.get('/console/keys/new')).status).toBe(200);
});

test('taking access away needs no password: disabling an endpoint and revoking a key go through', async () => {
  expireSudo();
  const disabled = await admin.post(`/console/webhooks/endpoints/${endpointId}`, { state: 'disabled' });
  expect(disabled.status).toBe(303);
  expect((await fileStores().webhooks.endpoints.endpointById(endpointId))!.state).toBe('disabled');
  const revoked = await admin.post(`/console/keys/${keyId}/revoke`);
  expect(revoked.status).toBe(303);
  expect((await fileStores().keys.findKey(keyId))!.revokedAt).toBeTruthy();
});

test("a passkey of the person confirms as the password does; another person's passkey is refused alike, nothing confirmed", async () => {
  const own = (await enrolSoftPasskey(srv.config.authUrl, admin.userId, 'Sudo key')).authenticator;
  const foreign = (await enrolSoftPasskey(srv.config.authUrl, personId, "Not the admin's")).authenticator;
  const { origin } = relyingPartyOf(srv.config.authUrl);
  const answerWith = async (authenticator: typeof own) => {
    const options = JSON.parse((await admin.post('/console/confirm/passkey-options')).text) as { challenge: string; allowCredentials: { id: string }[] };
    expect(options.allowCredentials.map((c) => c.id)).toContain(own.id);
    expect(options.allowCredentials.map((c) => c.id)).not.toContain(foreign.id);
    return admin.post('/console/confirm', [
      ['via', 'passkey'],
      ['credential', JSON.stringify(authenticator.assert(options.challenge, origin))],
      ['return_to', '/console/keys/new'],
    ]);
  };
  expireSudo();
  const refused = await answerWith(foreign);
  expect(refused.status).toBe(401);
  expect(refused.text).toContain(PASSKEY_NOT_ACCEPTED);
  expect(refused.text).not.toContain(foreign.id);
  expect((await admin.get('/console/keys/new')).status).toBe(303);
  const confirmed = await answerWith(own);
  expect(confirmed.status).toBe(303);
  expect(confirmed.location).toBe('/console/keys/new');
  expect((await admin.get('/console/keys/new')).status).toBe(200);
});
