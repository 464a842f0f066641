import { Schema, type Connection } from 'mongoose';
import { openConnection } from '../../core/store/connection';
import { testConfig } from '../support/testConfig';

/**
 * Equality on a field keeps MongoDB's meaning on the local store, whose build hands
 * `field: <string or boolean>` and `field: {$in: [...]}` of those to SQLite on the field's index
 * expression (scripts/ferretdb/sqliteFieldEquality.patch): a boolean matches only that boolean
 * (not 1, not "true", not a missing field) and an array that holds it, as on MongoDB; the
 * outbox and replay sweeps ask for `outboxDue: true` / `replayDue: true` this way.
 */
const docSchema = new Schema({ _id: String, run: String, flag: Schema.Types.Mixed }, { versionKey: false });
const docModel = (connection: Connection) => connection.model('FieldEqualityTestDoc', docSchema, 'field_equality_test_docs');
let connection: Connection;
let Doc: ReturnType<typeof docModel>;

const run = `${Date.now()}_${Math.random().toString(36).slice(2)}`;
const docs = [
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
  Doc = docModel(connection);
  await Doc.collection.createIndex({ flag: 1 });
  await Doc.collection.insertMany(docs.map((d) => ({ ...d, run })));
});
afterAll(async () => {
  await Doc.collection.drop().catch(() => undefined);
  await connection.close();
});

const matching = async (filter: Record<string, unknown>) =>
  (await Doc.collection.find({ run, ...filter }).toArray()).map((d) => String(d._id).slice(run.length + 1)).sort();

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
  const ids = (await Doc.collection.find({ flag: true }).toArray()).map((d) => String(d._id)).filter((id) => id.startsWith(`${run}:`));
  expect(ids.sort()).toEqual([`${run}:array`, `${run}:true`]);
});

test('on the local store a boolean condition is answered through the field index', async () => {
  const plan = await connection.db!.command({ explain: { find: Doc.collection.collectionName, filter: { flag: true } } });
  // MongoDB answers explain in its own shape and always uses the index; only the local store names its pushdown.
  if (!('filterPushdown' in plan)) return;
  expect(plan.filterPushdown).toBe(true);
  expect(JSON.stringify(plan.queryPlanner)).toMatch(/USING INDEX/);
});
