import { Schema, type Connection } from 'mongoose';
import { createClient } from '../../core/oauth/clients';
import { refreshTokenGrant } from '../../core/oauth/grants/refreshToken';
import { findRefreshToken, issueRefreshToken } from '../../core/oauth/refreshTokens';
import type { OAuthError } from '../../core/oauth/tokenRequest';
import { createTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, RESOURCE, tokenRequest } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * The store applies a conditional update atomically: of concurrent writers that
 * update one document on a condition about its current state, exactly one wins, and
 * concurrent updates of different fields of one document all survive. On real MongoDB every
 * single-document write is atomic; the local store (FerretDB over SQLite) reads and writes
 * back in separate steps, which the project's FerretDB build serializes per collection
 * (scripts/ferretdb/atomicReadModifyWrite.patch).
 */

const ROUNDS = 40;
const CONCURRENT = 10;
/** Fewer rounds over HTTP, which show that the endpoint runs the grant the 100 rounds run. */
const HTTP_ROUNDS = 20;

let srv: TestApi;
let client: { client_id: string; client_secret: string };

beforeAll(async () => {
  // Each HTTP round comes from an address of its own, as a trusted proxy in front reports it: one
  // address's requests are held to a per-minute limit whose log every request reads, and 220
  // requests of one address would spend the run reading it.
  srv = await startTestApi({ ...OAUTH_ENV, TRUSTED_PROXY_HOPS: '1' });
  const tenant = await createTenant();
  client = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1_000_000 }, new Date());
  Slot = slotModel(srv.deps.store.connection);
});
afterAll(async () => srv.close());

const slotSchema = new Schema({ _id: String, holder: { type: String, default: null } }, { versionKey: false, strict: false });
const slotModel = (connection: Connection) => connection.model('AtomicityTestSlot', slotSchema, 'atomicity_test_slots');
let Slot: ReturnType<typeof slotModel>;

test(`findOneAndUpdate on the current state: exactly one of ${CONCURRENT} wins, ${ROUNDS} rounds`, async () => {
  const winners: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const _id = `slot_${round}_${Date.now()}`;
    await Slot.create({ _id, holder: null });
    const taken = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        Slot.findOneAndUpdate({ _id, holder: null }, { $set: { holder: `w${i}` } }, { returnDocument: 'after' }).lean(),
      ),
    );
    winners.push(taken.filter((t) => t !== null).length);
  }
  expect(winners).toEqual(Array(ROUNDS).fill(1));
});

test(`updateOne with a filter on the current state: exactly one modifies, ${ROUNDS} rounds`, async () => {
  const modified: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const _id = `slot_u${round}_${Date.now()}`;
    await Slot.create({ _id, holder: null });
    const results = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => Slot.updateOne({ _id, holder: null }, { $set: { holder: `w${i}` } })));
    modified.push(results.reduce((n, r) => n + r.modifiedCount, 0));
  }
  expect(modified).toEqual(Array(ROUNDS).fill(1));
});

test('concurrent updates of different fields of one document are all kept (no lost update)', async () => {
  for (let round = 0; round < 20; round++) {
    const _id = `slot_f${round}_${Date.now()}`;
    await Slot.create({ _id });
    await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => Slot.updateOne({ _id }, { $set: { [`f${i}`]: i } })));
    const doc = (await Slot.findById(_id).lean()) as Record<string, unknown>;
    for (let i = 0; i < CONCURRENT; i++) expect(doc[`f${i}`]).toBe(i);
  }
});

test(`${CONCURRENT} concurrent refresh_token grants of one M2M refresh token: exactly one succeeds and the reuse revokes the chain, ${ROUNDS} rounds`, async () => {
  const caller = { clientId: client.client_id, retryWindowMs: 0 };
  const successes: number[] = [];
  const liveTokensLeft: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const token = await issueRefreshToken(srv.deps.stores, { clientId: client.client_id, scope: 'mcp:tools', resource: RESOURCE }, 3600, new Date());
    const { chainId } = (await findRefreshToken(srv.deps.stores, token))!;
    const outcomes = await Promise.allSettled(
      Array.from({ length: CONCURRENT }, () =>
        refreshTokenGrant(srv.deps.stores, caller, token, new Map(), srv.config, srv.deps.purposeKeys, srv.signingKeys, new Date(), srv.deps.logger),
      ),
    );
    successes.push(outcomes.filter((o) => o.status === 'fulfilled').length);
    // Every other outcome is the refusal of a reused token, not some other failure.
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as OAuthError).error).toBe('invalid_grant');
    // The losers presented a used token: the whole chain, the winner's successor included, is revoked.
    liveTokensLeft.push(await srv.deps.stores.oauth.countLiveRefreshTokensOfChain(chainId));
  }
  expect(successes).toEqual(Array(ROUNDS).fill(1));
  expect(liveTokensLeft).toEqual(Array(ROUNDS).fill(0));
});

test(`${CONCURRENT} concurrent refreshes of one M2M refresh token over HTTP: exactly one succeeds, ${HTTP_ROUNDS} rounds`, async () => {
  const form = { client_id: client.client_id, client_secret: client.client_secret };
  const successes: number[] = [];
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    const from = { 'X-Forwarded-For': `192.0.2.${round + 1}` };
    const issued = await tokenRequest(srv, { ...form, grant_type: 'client_credentials', scope: 'mcp:tools', resource: RESOURCE }, from);
    expect(issued.status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, () => tokenRequest(srv, { ...form, grant_type: 'refresh_token', refresh_token: issued.json.refresh_token }, from)),
    );
    successes.push(answers.filter((a) => a.status === 200).length);
    // Every other answer is the refusal of a reused token, not some other failure.
    for (const a of answers) if (a.status !== 200) expect(a.json.error).toBe('invalid_grant');
  }
  expect(successes).toEqual(Array(HTTP_ROUNDS).fill(1));
});
