import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, MongoWriteConcernError, type Collection } from 'mongodb';
import mongoose from 'mongoose';
import { isStoreUnavailable, storeUnavailableProblem } from '../../core/store/storeUnavailable';
import { freePort, startFerretDb, type RunningService } from '../../scripts/localServices';

/**
 * The classifier against the errors the real driver raises: a store that is not there (a
 * closed port), and a FerretDB killed while requests are in flight and then while it is gone.
 */

async function caught(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('the call succeeded against a stopped store');
}

const describeErr = (e: unknown) => `${(e as Error)?.name}: ${(e as Error)?.message}`;

/** One call of each kind the product makes: a read, a bulk insert, a bulk write, an update, a single insert. */
function everyKindOfCall(col: Collection): Array<[string, () => Promise<unknown>]> {
  return [
    ['find', () => col.findOne({})],
    ['insertMany', () => col.insertMany([{ a: 1 }, { a: 2 }])],
    ['bulkWrite', () => col.bulkWrite([{ insertOne: { document: { a: 1 } } }, { updateOne: { filter: {}, update: { $set: { b: 1 } } } }])],
    ['updateOne', () => col.updateOne({}, { $set: { a: 1 } })],
    ['insertOne', () => col.insertOne({ a: 3 })],
  ];
}

test('every error of the driver against a closed port is the store being unavailable', async () => {
  const client = new MongoClient(`mongodb://127.0.0.1:${await freePort()}/x`, { serverSelectionTimeoutMS: 200 });
  try {
    for (const [kind, run] of everyKindOfCall(client.db().collection('t'))) {
      const err = await caught(run);
      expect([kind, isStoreUnavailable(err), describeErr(err)]).toEqual([kind, true, describeErr(err)]);
    }
  } finally {
    await client.close(true);
  }
});

test("mongoose's server selection error and buffering timeout are too", async () => {
  const m = new mongoose.Mongoose();
  m.set('bufferTimeoutMS', 200);
  const closed = await freePort();
  const err = await caught(() => m.connect(`mongodb://127.0.0.1:${closed}/x`, { serverSelectionTimeoutMS: 200 }));
  expect((err as Error).name).toBe('MongooseServerSelectionError');
  expect(isStoreUnavailable(err)).toBe(true);
  const Model = m.model('T', new m.Schema({ a: Number }));
  const buffered = await caught(() => Model.findOne({}).lean());
  expect((buffered as Error).message).toMatch(/buffering timed out/);
  expect(isStoreUnavailable(buffered)).toBe(true);
  await m.disconnect();
});

describe('a FerretDB killed under the driver', () => {
  let dir: string;
  let store: RunningService;
  let client: MongoClient;
  let m: mongoose.Mongoose;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'store-outage-'));
    port = await freePort();
    store = await startFerretDb({ port, dataDir: join(dir, 'data'), logFile: join(dir, 'ferretdb.log') });
    client = new MongoClient(`mongodb://127.0.0.1:${port}/outage`, { serverSelectionTimeoutMS: 500 });
    m = new mongoose.Mongoose();
    m.set('bufferTimeoutMS', 500);
    await m.connect(`mongodb://127.0.0.1:${port}/outage`, { serverSelectionTimeoutMS: 500 });
  }, 60_000);

  afterAll(async () => {
    await client.close(true).catch(() => undefined);
    await m.disconnect().catch(() => undefined);
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a refused write is not unavailability: duplicate keys, as a command and inside a bulk write', async () => {
    const col = client.db().collection('dup');
    await col.insertOne({ _id: 'k' } as never);
    const single = await caught(() => col.insertOne({ _id: 'k' } as never));
    const bulk = await caught(() => col.insertMany([{ _id: 'k2' }, { _id: 'k' }] as never[]));
    expect((bulk as Error).name).toBe('MongoBulkWriteError');
    expect(isStoreUnavailable(single)).toBe(false);
    expect(isStoreUnavailable(bulk)).toBe(false);
  });

  test('every call in flight at the kill and every call after it is unavailability', async () => {
    const col = client.db().collection('t');
    const Model = m.model('T', new m.Schema({ a: Number }));
    await col.insertMany(Array.from({ length: 200 }, (_, a) => ({ a })));
    await Model.create({ a: 1 });
    // Calls in flight when the store dies: large reads and writes the kill interrupts.
    const inFlight = [
      ...Array.from({ length: 8 }, () =>
        caught(() =>
          col
            .find({})
            .toArray()
            .then(() => col.find({}).toArray()),
        ),
      ),
      ...Array.from({ length: 4 }, (_, i) => caught(() => col.insertMany(Array.from({ length: 500 }, (_, a) => ({ a, i }))))),
      caught(() =>
        Model.find({})
          .lean()
          .then(() => Model.find({}).lean()),
      ),
    ];
    store.child.kill('SIGKILL');
    await new Promise((r) => store.child.once('exit', r));
    const errors: unknown[] = (await Promise.allSettled(inFlight)).flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    // The calls after the kill each wait out server selection: at once, so the file waits once.
    const after = [
      ...everyKindOfCall(col).map(([, run]) => run),
      () => Model.findOne({}).lean(),
      () => Model.insertMany([{ a: 1 }, { a: 2 }]),
      () => Model.updateOne({}, { $set: { a: 2 } }),
      () => Model.create({ a: 4 }),
    ];
    errors.push(...(await Promise.all(after.map((run) => caught(run)))));
    const names = new Set(errors.map((e) => (e as Error).name));
    // Which classes come depends on timing; the bulk write error (a 500 before) always does.
    expect(names).toContain('MongoBulkWriteError');
    expect(errors.filter((e) => !isStoreUnavailable(e)).map(describeErr)).toEqual([]);
  });
});

test("a write concern error of a lost primary, as the driver builds it from the server's reply", () => {
  // FerretDB has no replica set, so this one cannot be provoked here; the class and the reply shape are the driver's.
  const stepDown = new MongoWriteConcernError({
    ok: 1,
    writeConcernError: { code: 189, codeName: 'PrimarySteppedDown', errmsg: 'primary stepped down' },
  } as never);
  const shutdown = new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 91, errmsg: 'shutdown in progress' } } as never);
  const validation = new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 100, errmsg: 'unsatisfiable write concern' } } as never);
  expect(isStoreUnavailable(stepDown)).toBe(true);
  expect(isStoreUnavailable(shutdown)).toBe(true);
  expect(isStoreUnavailable(validation)).toBe(false);
});

test('other errors are not: a validation error, a plain bug, a file error', () => {
  const named = (name: string, message = 'x') => Object.assign(new Error(message), { name });
  expect(isStoreUnavailable(named('ValidationError'))).toBe(false);
  expect(isStoreUnavailable(named('MongooseError', 'Cast to ObjectId failed'))).toBe(false);
  expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
  expect(isStoreUnavailable(undefined)).toBe(false);
  expect(isStoreUnavailable(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
  expect(isStoreUnavailable('MongoNetworkError')).toBe(false);
});

test('the answer is a 503 dependency_unavailable with Retry-After', () => {
  const p = storeUnavailableProblem();
  expect([p.status, p.code, p.headers['Retry-After']]).toEqual([503, 'dependency_unavailable', '2']);
});
