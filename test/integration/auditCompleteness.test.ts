import { authenticator } from 'otplib';
import { LEGACY_ALLOWANCE } from '../../core/oauth/grantAllowance';
import { AUDIT_ACTIONS, type AuditAction } from '../../core/audit/auditActions';
import { allAuditEvents } from '../../core/audit/auditLog';
import { newId } from '../../core/ids';
import { createApiKey } from '../../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';
import { recordConsent } from '../../core/oauth/consentGrants';
import { passkeysOf } from '../../core/users/passkeyCeremonies';
import { createUser } from '../../core/users/users';
import { terminateRunningJobWorkflows } from '../support/contactRetrievalJobs';
import { setPasswordThrough } from '../support/accountForms';
import { SoftAuthenticator } from '../support/softAuthenticator';
import { consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { FormBrowser, formField } from '../support/formBrowser';
import { linkIn, Mailbox } from '../support/mailbox';
import { deadLetterAwaitingReplay, endDeadLetterWorkflows } from '../support/deadLetters';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { adminCli, createUserWithCli, startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';
import { fileStores } from '../support/testStore';

/**
 * The audit log is complete (DECISIONS.md "Audit actions"): each action is written by every path
 * that can cause it, the console, the /v1 API, the operator CLI and "Connected applications",
 * each driven for real, with its actor. `webhook listen`'s register, re-point and retire (the
 * operator's) are driven in webhookListen.cases.ts, and tool calls take the executor's road that
 * /v1 takes (operationAudit.ts).
 */
let srv: TestApi;
let receiver: HttpsReceiver;
let mailbox: Mailbox;
let tenant: TestTenant;
let admin: ConsoleSession;
/** The console's webhook workspace, and a key of it for the /v1 paths there. */
let hooksWorkspace = '';
let hooksKey = { key: '', keyId: '' };
const state = { passkeyId: '', consoleKeyId: '', cliKeyId: '', personId: '', consoleEndpoint: '', v1Endpoint: '', familyId: '', invitationId: '' };
const deadEvents: string[] = [];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  mailbox = await Mailbox.start();
  srv = await startSignInApi({
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_EXTRA_CA_FILE: receiver.caFile,
    SMTP_URL: mailbox.smtpUrl,
    MAIL_SENDER_INTERVAL_MS: '50',
  });
  tenant = await createTenant({ credits: 1000 });
  admin = await consoleSession(srv, tenant, 'admin', [...ALL_PERMISSIONS]);
  hooksWorkspace = newId('ws');
  await fileStores().tenancy.insertWorkspace({ _id: hooksWorkspace, orgId: tenant.orgId, name: 'Hooks' });
  const made = await createApiKey(fileStores(), { orgId: tenant.orgId, workspaceId: hooksWorkspace, scopes: [...ALL_PERMISSIONS], audience: 'developer-api' });
  hooksKey = { key: made.key, keyId: made.key_id };
  state.familyId = tenant.familyId;
  state.personId = (
    await createUser(
      fileStores(),
      srv.config,
      {
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        email: `a${Date.now()}@example.com`,
        permissions: ['jobs.v1:read'],
      },
      new Date(),
    )
  ).user_id;
});
afterAll(async () => {
  if (srv) await terminateRunningJobWorkflows(srv.deps.temporal);
  if (srv) await endDeadLetterWorkflows(srv.deps.temporal, deadEvents);
  await srv?.close();
  await receiver?.close();
  await mailbox?.stop();
});

const USER = () => `user:${admin.userId}`;
const KEY = () => `key:${hooksKey.keyId}`;

async function cli(...args: string[]): Promise<Record<string, any>> {
  const r = await adminCli(srv, ...args);
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return r.json as Record<string, any>;
}

async function consolePost(path: string, form: Record<string, string> | [string, string][] = {}): Promise<void> {
  const res = await admin.post(path, form);
  if (res.status >= 400) throw new Error(`${path} answered ${res.status}: ${/<p role="alert"[^>]*>([^<]*)/.exec(res.text)?.[1]}`);
}

async function v1(method: string, path: string, body: unknown, key = hooksKey.key): Promise<any> {
  const res = await api(srv.url, method, path, { key, body });
  if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.json;
}

/** A dead letter of the console's endpoint, its delivery workflow waiting for a replay. */
async function deadLetter(): Promise<string> {
  const made = await deadLetterAwaitingReplay(srv.deps.temporal, { orgId: tenant.orgId, workspaceId: hooksWorkspace, endpointId: state.consoleEndpoint });
  deadEvents.push(made.eventId);
  return made.deliveryId;
}

/** A running contact-retrieval job of a tenant of its own (two may run per organization); no worker runs it. */
async function runningJob(): Promise<{ tenant: TestTenant; jobId: string }> {
  const own = await createTenant({ credits: 100 });
  const personId = `per_audit${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  await insertTestPeople(srv.deps.stores, [personId]);
  const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', { key: own.key, body: { person_ids: [personId] }, idempotencyKey: `audit-${personId}` });
  if (res.status !== 202) throw new Error(`job creation answered ${res.status}: ${res.text}`);
  return { tenant: own, jobId: res.json.job_id };
}

interface AuditPath {
  action: AuditAction;
  via: string;
  /** Does it; answers the organization whose log gets the entry, and the actor. */
  drive: () => Promise<{ orgId: string; actor: string }>;
}

const inTenant = (actor: () => string) => async () => ({ orgId: tenant.orgId, actor: actor() });

const PATHS: AuditPath[] = [
  {
    action: 'key.created',
    via: 'console',
    drive: async () => {
      await consolePost('/console/keys/new', [
        ['name', 'Audited key'],
        ['workspace', tenant.workspaceId],
        ['application', tenant.applicationId],
        ['scopes', 'candidates.search'],
        ['expires', 'never'],
      ]);
      state.consoleKeyId = (await fileStores().keys.keysOfOrg(tenant.orgId)).find((k) => k.name === 'Audited key')!._id;
      return inTenant(USER)();
    },
  },
  {
    action: 'key.created',
    via: 'cli key create',
    drive: async () => {
      state.cliKeyId = (await cli('key', 'create', '--org', tenant.orgId, '--workspace', tenant.workspaceId, '--scopes', 'candidates.search')).key_id;
      return inTenant(() => 'operator')();
    },
  },
  {
    action: 'key.rotated',
    via: 'console',
    drive: async () => (await consolePost(`/console/keys/${state.consoleKeyId}/rotate`, { old_key_ends: '1h' }), inTenant(USER)()),
  },
  { action: 'key.rotated', via: 'cli key rotate', drive: async () => (await cli('key', 'rotate', '--key-id', state.cliKeyId), inTenant(() => 'operator')()) },
  { action: 'key.revoked', via: 'console', drive: async () => (await consolePost(`/console/keys/${state.consoleKeyId}/revoke`), inTenant(USER)()) },
  { action: 'key.revoked', via: 'cli key revoke', drive: async () => (await cli('key', 'revoke', '--key-id', state.cliKeyId), inTenant(() => 'operator')()) },
  ...(['set_cap', 'block', 'clear'] as const).flatMap((kind): AuditPath[] => {
    const action = ({ set_cap: 'limit.cap_set', block: 'limit.blocked', clear: 'limit.cleared' } as const)[kind];
    const form = { operation: 'candidates.search', applies_to: 'organization', target: '', ...(kind === 'set_cap' ? { requests_per_minute: '10' } : {}) };
    const cliCommand = { set_cap: ['set', '--requests-per-minute', '20'], block: ['block'], clear: ['clear'] }[kind];
    return [
      { action, via: 'console', drive: async () => (await consolePost(`/console/limits${kind === 'set_cap' ? '' : `/${kind}`}`, form), inTenant(USER)()) },
      {
        action,
        via: `cli limit ${cliCommand[0]}`,
        drive: async () => {
          const [command, ...rest] = cliCommand;
          await cli('limit', command, '--org', tenant.orgId, '--operation', 'search.sources', ...rest);
          return inTenant(() => 'operator')();
        },
      },
    ];
  }),
  {
    action: 'limit.rate_set',
    via: 'cli limit rate',
    drive: async () => (await cli('limit', 'rate', '--org', tenant.orgId, '--requests-per-second', '20'), inTenant(() => 'operator')()),
  },
  { action: 'budget.set', via: 'console', drive: async () => (await consolePost('/console/budgets', { family_id: '', budget: '500' }), inTenant(USER)()) },
  {
    action: 'budget.set',
    via: 'cli budget set',
    drive: async () => (await cli('budget', 'set', '--org', tenant.orgId, '--amount', '400'), inTenant(() => 'operator')()),
  },
  { action: 'budget.removed', via: 'console', drive: async () => (await consolePost('/console/budgets/remove', { family_id: '' }), inTenant(USER)()) },
  {
    action: 'budget.removed',
    via: 'cli budget set --amount none',
    drive: async () => (await cli('budget', 'set', '--org', tenant.orgId, '--amount', 'none'), inTenant(() => 'operator')()),
  },
  {
    action: 'credits.granted',
    via: 'cli credits grant',
    drive: async () => (await cli('credits', 'grant', '--org', tenant.orgId, '--amount', '5'), inTenant(() => 'operator')()),
  },
  {
    action: 'user.invited',
    via: 'console',
    drive: async () => {
      const email = `invited${Date.now()}@example.com`;
      await consolePost('/console/team/invite', [
        ['email', email],
        ['role', 'member'],
        ['permissions', 'jobs.v1:read'],
      ]);
      state.invitationId = (await srv.deps.stores.users.newestInvitationTo(email, tenant.orgId))!._id;
      return inTenant(USER)();
    },
  },
  {
    action: 'user.invitation_resent',
    via: 'console "Resend invitation"',
    drive: async () => (await consolePost(`/console/team/invitations/${state.invitationId}/resend`), inTenant(USER)()),
  },
  {
    action: 'user.invitation_cancelled',
    via: 'console "Cancel invitation"',
    drive: async () => (await consolePost(`/console/team/invitations/${state.invitationId}/cancel`), inTenant(USER)()),
  },
  {
    action: 'user.password_reset',
    via: '"Forgot password?" and the mailed link',
    drive: async () => {
      const person = await consoleSession(srv, tenant, 'member');
      const browser = new FormBrowser(srv.url);
      const form = await browser.request('/api/oauth/reset');
      const sent = await browser.request('/api/oauth/reset', { form: { csrf_token: formField(form.text, 'csrf_token'), email: person.email } });
      if (sent.status !== 200) throw new Error(`the reset request answered ${sent.status}`);
      const link = linkIn(await mailbox.waitFor(person.email, 'Reset your talent platform password'), `${srv.url}/api/oauth/setup?token=`);
      const set = await setPasswordThrough(browser, link, 'a brand new password 456');
      if (set.status !== 200) throw new Error(`setting the new password answered ${set.status}`);
      return { orgId: tenant.orgId, actor: `user:${person.userId}` };
    },
  },
  {
    action: 'user.invited',
    via: 'cli user create',
    drive: async () => {
      await createUserWithCli(srv, {
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        email: `cli${Date.now()}@example.com`,
        permissions: ['jobs.v1:read'],
      });
      return inTenant(() => 'operator')();
    },
  },
  {
    action: 'user.updated',
    via: 'console',
    drive: async () => (
      await consolePost(`/console/team/${state.personId}`, [
        ['role', 'member'],
        ['permissions', 'candidates.search'],
      ]),
      inTenant(USER)()
    ),
  },
  {
    action: 'user.updated',
    via: 'cli user role',
    drive: async () => (await cli('user', 'role', '--user-id', state.personId, '--role', 'admin'), inTenant(() => 'operator')()),
  },
  {
    action: 'grant.revoked',
    via: 'Connected applications',
    drive: async () => {
      await recordConsent(
        srv.deps.stores,
        {
          userId: admin.userId,
          orgId: tenant.orgId,
          clientId: 'https://client.example/app.json',
          clientName: 'Client',
          scope: 'mcp:tools',
          allowance: LEGACY_ALLOWANCE,
        },
        new Date(),
      );
      await consolePost('/api/oauth/connections/revoke', { client_id: 'https://client.example/app.json' });
      return inTenant(USER)();
    },
  },
  {
    action: 'grant.allowance_changed',
    via: 'Connected applications',
    drive: async () => {
      const grant = await recordConsent(
        srv.deps.stores,
        {
          userId: admin.userId,
          orgId: tenant.orgId,
          clientId: 'https://client.example/allowance.json',
          clientName: 'Allowance client',
          scope: 'mcp:tools',
          allowance: { mode: 'daily', dailyCredits: 20 },
        },
        new Date(),
      );
      await consolePost(`/console/connected-applications/${grant._id}/allowance`, { allowance: 'daily', daily_credits: '5' });
      return inTenant(USER)();
    },
  },
  {
    action: 'agent_policy.updated',
    via: 'console Settings',
    drive: async () => {
      await consolePost('/console/settings/ai-applications', { agent_mode: 'spend', default_daily_credits: '40', max_daily_credits: '400' });
      return inTenant(USER)();
    },
  },
  {
    action: 'mfa.enabled',
    via: 'console Security "Turn on"',
    drive: async () => {
      const setup = await admin.get('/console/security/authenticator-app');
      const secret = /<code id="totp-secret"[^>]*>([A-Z2-7]+)<\/code>/.exec(setup.text)![1];
      await consolePost('/console/security/authenticator-app', { code: authenticator.generate(secret) });
      return inTenant(USER)();
    },
  },
  {
    action: 'recovery_codes.generated',
    via: 'console Security "Generate new recovery codes"',
    drive: async () => (await consolePost('/console/security/recovery-codes'), inTenant(USER)()),
  },
  {
    action: 'mfa.disabled',
    via: 'console Security "Turn off authenticator app"',
    drive: async () => (await consolePost('/console/security/authenticator-app/remove'), inTenant(USER)()),
  },
  {
    action: 'security_policy.updated',
    via: 'console Settings "Save security policy"',
    // Off: turned on, it would hold the admin (who has no factor now) on Security for the rows after.
    drive: async () => (await consolePost('/console/settings/security', { require_second_factor: 'off' }), inTenant(USER)()),
  },
  {
    action: 'security_policy.updated',
    via: 'cli org require-2fa',
    drive: async () => (await cli('org', 'require-2fa', '--org', tenant.orgId, '--required', 'off'), inTenant(() => 'operator')()),
  },
  {
    action: 'organization.updated',
    via: 'console Settings "Save name"',
    drive: async () => {
      await consolePost('/console/settings/name', { name: 'Audited organization' });
      return inTenant(USER)();
    },
  },
  {
    action: 'grant.revoked',
    via: 'cli user grants revoke',
    drive: async () => {
      await recordConsent(
        srv.deps.stores,
        {
          userId: state.personId,
          orgId: tenant.orgId,
          clientId: 'https://client.example/other.json',
          clientName: 'Other',
          scope: 'mcp:tools',
          allowance: LEGACY_ALLOWANCE,
        },
        new Date(),
      );
      await cli('user', 'grants', 'revoke', '--user-id', state.personId);
      return inTenant(() => 'operator')();
    },
  },
  {
    action: 'webhook_endpoint.created',
    via: 'console',
    drive: async () => {
      await consolePost('/console/webhooks', { workspace: hooksWorkspace, url: `${receiver.url}/console` });
      state.consoleEndpoint = (await srv.deps.stores.webhooks.endpoints.endpointsOfWorkspace(hooksWorkspace))[0]._id;
      return inTenant(USER)();
    },
  },
  {
    action: 'webhook_endpoint.created',
    via: 'POST /v1/webhook-endpoints',
    drive: async () => {
      state.v1Endpoint = (await v1('POST', '/v1/webhook-endpoints', { url: `${receiver.url}/v1` }, tenant.key)).endpoint.endpoint_id;
      return { orgId: tenant.orgId, actor: `key:${tenant.keyId}` };
    },
  },
  {
    action: 'webhook_endpoint.updated',
    via: 'console',
    drive: async () => (await consolePost(`/console/webhooks/endpoints/${state.consoleEndpoint}`, { url: `${receiver.url}/console2` }), inTenant(USER)()),
  },
  {
    action: 'webhook_endpoint.updated',
    via: 'PATCH /v1/webhook-endpoints/{id}',
    drive: async () => (
      await v1('PATCH', `/v1/webhook-endpoints/${state.v1Endpoint}`, { url: `${receiver.url}/v1b` }, tenant.key),
      { orgId: tenant.orgId, actor: `key:${tenant.keyId}` }
    ),
  },
  {
    action: 'webhook_endpoint.secret_rotated',
    via: 'console',
    drive: async () => (await consolePost(`/console/webhooks/endpoints/${state.consoleEndpoint}/rotate-secret`), inTenant(USER)()),
  },
  {
    action: 'webhook_endpoint.secret_rotated',
    via: 'POST /v1/webhook-endpoints/{id}/rotate-secret',
    drive: async () => (
      await v1('POST', `/v1/webhook-endpoints/${state.v1Endpoint}/rotate-secret`, {}, tenant.key),
      { orgId: tenant.orgId, actor: `key:${tenant.keyId}` }
    ),
  },
  {
    action: 'webhook_endpoint.test_sent',
    via: 'console',
    drive: async () => {
      await consolePost(`/console/webhooks/endpoints/${state.consoleEndpoint}/test-event`);
      // No worker polls this file's queue: the test event's delivery workflow is ended with the dead letters'.
      const entry = (await allAuditEvents(srv.deps.stores, tenant.orgId, { action: 'webhook_endpoint.test_sent' }).next()).value;
      deadEvents.push(String((entry?.after as { event_id?: string } | null)?.event_id));
      return inTenant(USER)();
    },
  },
  {
    action: 'webhook_delivery.replayed',
    via: 'console',
    drive: async () => (await consolePost(`/console/webhooks/deliveries/${await deadLetter()}/replay`), inTenant(USER)()),
  },
  {
    action: 'webhook_delivery.replayed',
    via: 'POST /v1/webhook-deliveries/{id}/replays',
    drive: async () => (await v1('POST', `/v1/webhook-deliveries/${await deadLetter()}/replays`, {}), inTenant(KEY)()),
  },
  {
    action: 'webhook_endpoint.retired',
    via: 'console',
    drive: async () => (await consolePost(`/console/webhooks/endpoints/${state.consoleEndpoint}/retire`), inTenant(USER)()),
  },
  {
    action: 'webhook_endpoint.retired',
    via: 'DELETE /v1/webhook-endpoints/{id}',
    drive: async () => (
      await v1('DELETE', `/v1/webhook-endpoints/${state.v1Endpoint}`, undefined, tenant.key),
      { orgId: tenant.orgId, actor: `key:${tenant.keyId}` }
    ),
  },
  { action: 'user.disabled', via: 'console', drive: async () => (await consolePost(`/console/team/${state.personId}/disable`), inTenant(USER)()) },
  {
    action: 'user.disabled',
    via: 'cli user disable',
    drive: async () => {
      const other = await createUser(
        fileStores(),
        srv.config,
        {
          orgId: tenant.orgId,
          workspaceId: tenant.workspaceId,
          email: `d${Date.now()}@example.com`,
          permissions: ['jobs.v1:read'],
        },
        new Date(),
      );
      await cli('user', 'disable', '--user-id', other.user_id);
      return inTenant(() => 'operator')();
    },
  },
  {
    action: 'passkey.added',
    via: 'console Security "Add a passkey"',
    drive: async () => {
      const options = JSON.parse((await admin.post('/console/security/passkeys/options')).text);
      const answer = new SoftAuthenticator().register(options, new URL(srv.config.authUrl).origin);
      await consolePost('/console/security/passkeys', { name: 'Audited passkey', credential: JSON.stringify(answer) });
      state.passkeyId = (await passkeysOf(srv.deps.stores, admin.userId)).find((p) => p.name === 'Audited passkey')!._id;
      return inTenant(USER)();
    },
  },
  {
    action: 'passkey.renamed',
    via: 'console Security "Rename"',
    drive: async () => {
      await consolePost(`/console/security/passkeys/${state.passkeyId}/rename`, { passkey_id: state.passkeyId, name: 'Renamed passkey' });
      return inTenant(USER)();
    },
  },
  {
    action: 'passkey.removed',
    via: 'console Security "Remove"',
    drive: async () => {
      await consolePost(`/console/security/passkeys/${state.passkeyId}/remove`, { passkey_id: state.passkeyId });
      return inTenant(USER)();
    },
  },
  {
    action: 'job.cancelled',
    via: 'console',
    drive: async () => {
      const { tenant: own, jobId } = await runningJob();
      const person = await consoleSession(srv, own, 'admin', [...ALL_PERMISSIONS]);
      const res = await person.post(`/console/jobs/${jobId}/cancel`);
      if (res.status >= 400) throw new Error(`cancel answered ${res.status}`);
      return { orgId: own.orgId, actor: `user:${person.userId}` };
    },
  },
  {
    action: 'job.cancelled',
    via: 'POST /v1/contact-retrieval-jobs/{id}/cancel',
    drive: async () => {
      const { tenant: own, jobId } = await runningJob();
      await v1('POST', `/v1/contact-retrieval-jobs/${jobId}/cancel`, {}, own.key);
      return { orgId: own.orgId, actor: `key:${own.keyId}` };
    },
  },
  {
    action: 'job.cancelled',
    via: 'cli job cancel',
    drive: async () => {
      const { tenant: own, jobId } = await runningJob();
      await cli('job', 'cancel', '--job-id', jobId);
      return { orgId: own.orgId, actor: 'operator' };
    },
  },
];

test('every audit action DECISIONS.md lists has its paths in the table', () => {
  expect([...new Set(PATHS.map((p) => p.action))].sort()).toEqual([...AUDIT_ACTIONS].sort());
});

test.each(PATHS.map((p) => [p.action, p.via, p] as const))('%s by %s writes its entry', async (action, _via, path) => {
  const since = new Date(Date.now() - 1000);
  const { orgId, actor } = await path.drive();
  const entries = [];
  for await (const e of allAuditEvents(srv.deps.stores, orgId, { action, actor })) if (Date.parse(e.time) >= since.getTime()) entries.push(e);
  expect(entries.length).toBeGreaterThanOrEqual(1);
});
