import { Schema, type Connection } from 'mongoose';
import { openConnection } from '../../core/store/connection';
import { testConfig } from '../support/testConfig';

/**
 * Deletes by `_id` keep MongoDB's meaning on the local store, whose build deletes a filter that is
 * only `_id` (a string, or `$in` of strings) without reading the documents first
 * (scripts/ferretdb/deleteById.patch): exactly the named documents that exist are deleted and
 * counted, ids the fast path does not take (escaped characters, other types, other conditions)
 * behave the same, and `deleteOne` with `$in` still deletes one.
 */
const docSchema = new Schema({ _id: Schema.Types.Mixed, token: String }, { versionKey: false });
const docModel = (connection: Connection) => connection.model('DeleteByIdTestDoc', docSchema, 'delete_by_id_test_docs');
let connection: Connection;
let Doc: ReturnType<typeof docModel>;

beforeAll(async () => {
  connection = await openConnection(testConfig().mongodbUri);
  Doc = docModel(connection);
});
afterAll(async () => connection.close());

const run = `${Date.now()}_${Math.random().toString(36).slice(2)}`;
const id = (name: string) => `${run}:${name}`;
const remaining = async (ids: unknown[]) => (await Doc.find({ _id: { $in: ids } }).lean()).map((d) => String(d._id)).sort();

test('deleteMany by _id $in deletes and counts exactly the named documents that exist', async () => {
  const ids = ['a', 'b', 'c', 'd'].map(id);
  await Doc.insertMany(ids.map((_id) => ({ _id, token: 't' })));
  const res = await Doc.deleteMany({ _id: { $in: [ids[0], ids[2], id('missing'), ids[0]] } });
  expect(res.deletedCount).toBe(2);
  expect(await remaining(ids)).toEqual([ids[1], ids[3]].sort());
  expect((await Doc.deleteOne({ _id: ids[1] })).deletedCount).toBe(1);
  expect((await Doc.deleteOne({ _id: ids[1] })).deletedCount).toBe(0);
  expect(await remaining(ids)).toEqual([ids[3]]);
});

test('ids with characters JSON encoders escape, and ids that are not strings, are deleted too', async () => {
  const odd = [id('quote"<&>\\é'), id('plain')];
  await Doc.insertMany([...odd.map((_id) => ({ _id })), { _id: 4242 }]);
  expect((await Doc.deleteMany({ _id: { $in: odd } })).deletedCount).toBe(2);
  expect((await Doc.deleteMany({ _id: { $in: [4242] } })).deletedCount).toBe(1);
  expect(await remaining([...odd, 4242])).toEqual([]);
});

test('a delete with another condition beside _id deletes only the documents that meet it', async () => {
  const ids = ['x', 'y'].map(id);
  await Doc.insertMany([
    { _id: ids[0], token: 'keep' },
    { _id: ids[1], token: 'drop' },
  ]);
  expect((await Doc.deleteMany({ _id: { $in: ids }, token: { $in: ['drop'] } })).deletedCount).toBe(1);
  expect(await remaining(ids)).toEqual([ids[0]]);
});

test('deleteOne with _id $in deletes one document', async () => {
  const ids = ['p', 'q', 'r'].map(id);
  await Doc.insertMany(ids.map((_id) => ({ _id })));
  expect((await Doc.deleteOne({ _id: { $in: ids } })).deletedCount).toBe(1);
  expect((await remaining(ids)).length).toBe(2);
});
