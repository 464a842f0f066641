import type { Collection } from 'mongodb';
import type { Connection } from 'mongoose';
import { openConnection } from '../../core/store/connection';
import { testConfig } from '../support/testConfig';

/**
 * Equality on a field keeps MongoDB's meaning on the local store, whose build hands
 * `field: <string or boolean>` and `field: {$in: [...]}` of those to SQLite on the field's index
 * expression (scripts/ferretdb/sqliteFieldEquality.patch): a boolean matches only that boolean
 * (not 1, not "true", not a missing field) and an array that holds it, as on MongoDB; the
 * outbox and replay sweeps ask for `outboxDue: true` / `replayDue: true` this way.
 */
interface FlagDoc {
  _id: string;
  run?: string;
  flag?: unknown;
}
let connection: Connection;
let docs: Collection<FlagDoc>;

const run = `${Date.now()}_${Math.random().toString(36).slice(2)}`;
const seeded: FlagDoc[] = [
  { _id: `${run}:true`, flag: true },
  { _id: `${run}:false`, flag: false },
  { _id: `${run}:one`, flag: 1 },
  { _id: `${run}:zero`, flag: 0 },
  { _id: `${run}:text`, flag: 'true' },
  { _id: `${run}:array`, flag: [false, true] },
  { _id: `${run}:null`, flag: null },
  { _id: `${run}:missing` },
];

beforeAll(async () => {
  connection = await openConnection(testConfig().mongodbUri);
  docs = connection.db!.collection<FlagDoc>('field_equality_test_docs');
  await docs.createIndex({ flag: 1 });
  await docs.insertMany(seeded.map((d) => ({ ...d, run })));
});
afterAll(async () => {
  await docs.drop().catch(() => undefined);
  await connection.close();
});

const matching = async (filter: Record<string, unknown>) =>
  (await docs.find({ run, ...filter }).toArray()).map((d) => String(d._id).slice(run.length + 1)).sort();

test('a boolean matches only that boolean and arrays holding it', async () => {
  expect(await matching({ flag: true })).toEqual(['array', 'true']);
  expect(await matching({ flag: false })).toEqual(['array', 'false']);
  expect(await matching({ flag: { $eq: true } })).toEqual(['array', 'true']);
});

test('$in of booleans and strings keeps each value its own type', async () => {
  expect(await matching({ flag: { $in: [true] } })).toEqual(['array', 'true']);
  expect(await matching({ flag: { $in: [false, 'true'] } })).toEqual(['array', 'false', 'text']);
});

test('the same filter without the run condition finds the same documents', async () => {
  const ids = (await docs.find({ flag: true }).toArray()).map((d) => String(d._id)).filter((id) => id.startsWith(`${run}:`));
  expect(ids.sort()).toEqual([`${run}:array`, `${run}:true`]);
});

test('on the local store a boolean condition is answered through the field index', async () => {
  const plan = await connection.db!.command({ explain: { find: docs.collectionName, filter: { flag: true } } });
  // MongoDB answers explain in its own shape and always uses the index; only the local store names its pushdown.
  if (!('filterPushdown' in plan)) return;
  expect(plan.filterPushdown).toBe(true);
  expect(JSON.stringify(plan.queryPlanner)).toMatch(/USING INDEX/);
});
