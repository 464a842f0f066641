import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { isDuplicateKeyError } from '../../core/store/duplicateKey';
import { isDuplicateKeyError as fromConnection } from '../../core/store/connection';

// The shapes below are what the stores answered (FerretDB 1.24.2 checked by hand; MongoDB's
// are its documented ones).
const mongoInsert = new MongoServerError({
  message: 'E11000 duplicate key error collection: t.s index: _id_ dup key: { _id: "a" }',
  code: 11000,
  codeName: 'DuplicateKey',
});
const ferretUpsert = new MongoServerError({ message: 'E11000 duplicate key error collection: probe.limit_settings', code: 11000 });
const ferretUpdateOnUniqueIndex = new MongoServerError({
  message:
    "[msg_update.go:133 handler.(*Handler).updateDocument] [update.go:114 common.UpdateDocument] constraint failed: UNIQUE constraint failed: index 'e_e00c22e0_ws_1' (2067)",
  code: 1,
  codeName: 'InternalError',
});
const oldServerUpdate = { code: 11001, message: 'E11001 duplicate key on update' };
const bulkEntry = { index: 0, code: 11000, errmsg: 'E11000 duplicate key error collection: probe2.ms' };
const legacyBulkEntry = { index: 1, err: { code: 11000 } };

describe('isDuplicateKeyError: one test for every store spelling of a unique-index violation', () => {
  test.each([
    ['MongoDB insert (11000)', mongoInsert],
    ['FerretDB concurrent first-time upsert (11000)', ferretUpsert],
    ['FerretDB update colliding on a unique secondary index (code 1, SQLite text)', ferretUpdateOnUniqueIndex],
    ['an old MongoDB update (11001)', oldServerUpdate],
    ['a bulk write entry', bulkEntry],
    ['a legacy bulk write entry (err.code)', legacyBulkEntry],
    ['mongoose wrapping the driver error as cause', Object.assign(new Error('write failed'), { cause: ferretUpdateOnUniqueIndex })],
    ['a driver error carrying only errorResponse', { errorResponse: { code: 11000 } }],
    ['codeName only', { codeName: 'DuplicateKey' }],
  ])('%s', (_name, err) => {
    expect(isDuplicateKeyError(err)).toBe(true);
  });

  test.each([
    ['another server error', new MongoServerError({ message: 'not primary', code: 10107 })],
    ['a FerretDB internal error of another kind', new MongoServerError({ message: 'constraint failed: NOT NULL constraint failed', code: 1 })],
    ['a plain error', new Error('boom')],
    ['nothing', undefined],
    ['a string', 'E11000'],
  ])('not %s', (_name, err) => {
    expect(isDuplicateKeyError(err)).toBe(false);
  });

  test('a bulk insert error is a duplicate when its first failure is; callers check each entry', () => {
    const bulk = new MongoBulkWriteError({ message: bulkEntry.errmsg, code: 11000, writeErrors: [bulkEntry] } as never, { insertedCount: 1 } as never);
    expect(isDuplicateKeyError(bulk)).toBe(true);
  });

  test('core/store/connection re-exports the same function', () => {
    expect(fromConnection).toBe(isDuplicateKeyError);
  });
});
