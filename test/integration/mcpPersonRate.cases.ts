import { randomBytes } from 'node:crypto';
import { issueAccessToken } from '../../core/oauth/accessTokens';
import { admitPersonRequest } from '../../core/oauth/personRateLimit';
import { registerPublicClient } from '../../core/oauth/publicClients';
import { startChain } from '../../core/oauth/tokenChains';
import { newId } from '../../core/ids';
import { createUser } from '../../core/users/users';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { AUTH_URL, OAUTH_ENV, RESOURCE } from './oauthTestClient';
import { StoreAdmission } from '../../core/limits/requestAdmission';
import { testLogger } from '../support/capturedLogs';
import { fileStores } from '../support/testStore';

const PER_SECOND = 3;
let srv: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  srv = await startTestApi({ ...OAUTH_ENV, PERSON_TOOL_REQUESTS_PER_SECOND: String(PER_SECOND) });
  tenant = await createTenant({ credits: 100 });
});
afterAll(async () => srv.close());

/** A person connected through one registered application: what the code grant leaves behind, minted directly. */
async function personToken(userId?: string): Promise<{ userId: string; token: string }> {
  const person =
    userId ??
    (
      await createUser(
        fileStores(),
        srv.config,
        {
          orgId: tenant.orgId,
          workspaceId: tenant.workspaceId,
          email: `p${randomBytes(6).toString('hex')}@example.com`,
          permissions: ['candidates.search'],
        },
        new Date(),
      )
    ).user_id;
  const client = (await registerPublicClient(srv.deps.stores, { client_name: 'Rate test', redirect_uris: ['https://rate.example.com/cb'] }, new Date()))
    .client_id as string;
  const chainId = newId('rtc');
  await startChain(srv.deps.stores, { id: chainId, userId: person, clientId: client, grantId: newId('cg') }, new Date());
  const { token } = await issueAccessToken({
    now: new Date(),
    issuer: AUTH_URL,
    audience: RESOURCE,
    clientId: client,
    scope: 'mcp:tools',
    ttlSeconds: 600,
    signingKeys: srv.signingKeys,
    user: { userId: person, chainId },
  });
  return { userId: person, token };
}

function toolsList(token: string) {
  return fetch(`${srv.url}/tools`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

describe('the per-person request rate of the tool server (a clock the test sets)', () => {
  let admission: StoreAdmission;
  beforeAll(() => {
    admission = new StoreAdmission(srv.deps.stores.limits, Date.now, testLogger());
  });
  test('PER_SECOND requests in one second, the next refused until the next second; a refusal takes no place', async () => {
    const { userId } = await personToken();
    // A second far from now, so no real request of this person shares its window.
    const second = Math.floor(Date.now() / 1000) + 10_000;
    const at = (ms: number) => () => second * 1000 + ms;
    for (let i = 0; i < PER_SECOND; i++) expect(await admitPersonRequest(admission, userId, PER_SECOND, at(100 * i))).toEqual({ ok: true });
    expect(await admitPersonRequest(admission, userId, PER_SECOND, at(400))).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(await admitPersonRequest(admission, userId, PER_SECOND, at(999))).toEqual({ ok: false, retryAfterSeconds: 1 });
    // Another person is not affected.
    const other = await personToken();
    expect(await admitPersonRequest(admission, other.userId, PER_SECOND, at(500))).toEqual({ ok: true });
    // The next second has room again: refusals used none of it.
    for (let i = 0; i < PER_SECOND; i++) expect(await admitPersonRequest(admission, userId, PER_SECOND, at(1000 + i))).toEqual({ ok: true });
    expect(await admitPersonRequest(admission, userId, PER_SECOND, at(1500))).toEqual({ ok: false, retryAfterSeconds: 1 });
  });
});

describe('every tool-server request of a person counts, whatever the method', () => {
  test("concurrent tools/list beyond the rate are 429 with Retry-After, for all the person's applications together", async () => {
    const first = await personToken();
    const second = await personToken(first.userId); // the same person through another application
    const offered = 8 * PER_SECOND;
    const answers = await Promise.all(Array.from({ length: offered }, (_, i) => toolsList(i % 2 ? first.token : second.token)));
    const admitted = answers.filter((r) => r.status === 200).length;
    const refused = answers.filter((r) => r.status === 429);
    // However the requests fall across second boundaries, no more than PER_SECOND per second were served.
    expect(admitted + refused.length).toBe(offered);
    expect(refused.length).toBeGreaterThan(0);
    expect(admitted).toBeGreaterThan(0);
    const one = refused[0];
    expect(Number(one.headers.get('retry-after'))).toBe(1);
    expect(one.headers.get('cache-control')).toBe('private, no-store');
    expect(await one.json()).toEqual({ error: 'rate_limited', error_description: expect.stringContaining(`${PER_SECOND} per second`) });
  });
});
