import { isStoreUnavailable } from '../../core/store/storeUnavailable';

const named = (name: string, message = 'x', cause?: unknown) => Object.assign(new Error(message, { cause }), { name });

test('driver and mongoose errors of an unreachable store are recognised, also as a cause', () => {
  for (const n of [
    'MongoServerSelectionError',
    'MongooseServerSelectionError',
    'MongoNetworkError',
    'MongoNetworkTimeoutError',
    'MongoNotConnectedError',
    'MongoPoolClearedError',
  ]) {
    expect(isStoreUnavailable(named(n))).toBe(true);
  }
  expect(isStoreUnavailable(named('MongooseError', 'Operation `api_keys.findOne()` buffering timed out after 1500ms'))).toBe(true);
  expect(isStoreUnavailable(named('Error', 'wrapped', named('MongoNetworkError')))).toBe(true);
  // What the driver let through unwrapped when the store died mid-write.
  expect(isStoreUnavailable(Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' }))).toBe(true);
  expect(isStoreUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
});

test('other errors are not: a duplicate key, a validation error, a plain bug', () => {
  expect(isStoreUnavailable(Object.assign(named('MongoServerError', 'E11000 duplicate key'), { code: 11000 }))).toBe(false);
  expect(isStoreUnavailable(named('ValidationError'))).toBe(false);
  expect(isStoreUnavailable(named('MongooseError', 'Cast to ObjectId failed'))).toBe(false);
  expect(isStoreUnavailable(new TypeError('x is undefined'))).toBe(false);
  expect(isStoreUnavailable(undefined)).toBe(false);
  expect(isStoreUnavailable(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
  expect(isStoreUnavailable(Object.assign(new Error('numeric code'), { code: 11000 }))).toBe(false);
  expect(isStoreUnavailable('MongoNetworkError')).toBe(false);
});
