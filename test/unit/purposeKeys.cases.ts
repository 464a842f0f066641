import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { loadConfig } from '../../core/config';
import { closeDeps, createDeps } from '../../core/deps';
import { derivePurposeKey, PurposeKeys, purposeKeysOf } from '../../core/crypto/purposeKeys';
import { testLogger } from '../support/capturedLogs';

/** The HKDF-SHA-256 of RFC 5869 under the label the platform gives each purpose, computed here on its own. */
function hkdf(master: Buffer, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), label, 32));
}

test('a purpose key is the HKDF of the master under its purpose and version', () => {
  const master = randomBytes(32);
  const keys = new PurposeKeys(master);
  expect(keys.key('page-cursor').equals(hkdf(master, 'talent-platform/page-cursor/v1'))).toBe(true);
  expect(keys.key('secret-box', 2).equals(hkdf(master, 'talent-platform/secret-box/v2'))).toBe(true);
  expect(derivePurposeKey(master, 'csrf').equals(hkdf(master, 'talent-platform/csrf/v1'))).toBe(true);
});

test('each purpose and version has its own key, and none is the master', () => {
  const master = randomBytes(32);
  const keys = new PurposeKeys(master);
  const all = [keys.key('person-id'), keys.key('search-id'), keys.key('csrf'), keys.key('secret-box'), keys.key('secret-box', 2)].map((k) => k.toString('hex'));
  expect(new Set(all).size).toBe(all.length);
  expect(all).not.toContain(master.toString('hex'));
});

test('a key is derived once per app: asking again answers the same key without deriving it again', () => {
  const keys = new PurposeKeys(randomBytes(32));
  const first = keys.key('person-id');
  expect(keys.key('person-id')).toBe(first);
  expect(keys.key('person-id', 2)).not.toBe(first);
});

test("two apps' keys are their own: other masters give other keys, the same master the same ones", () => {
  const master = randomBytes(32);
  const one = new PurposeKeys(master);
  const same = new PurposeKeys(Buffer.from(master));
  const other = new PurposeKeys(randomBytes(32));
  expect(same.key('person-id').equals(one.key('person-id'))).toBe(true);
  expect(other.key('person-id').equals(one.key('person-id'))).toBe(false);
  // Keyed ids of one app are not computable with another's keys.
  const id = (k: PurposeKeys) => createHmac('sha256', k.key('person-id')).update('people:s:1').digest('hex');
  expect(id(one)).not.toBe(id(other));
});

test("the previous master's keys ride along during a rotation, and only then", () => {
  const current = randomBytes(32);
  const previous = randomBytes(32);
  const rotating = purposeKeysOf({ secretsKey: current, secretsKeyPrevious: previous });
  expect(rotating.key('secret-box').equals(hkdf(current, 'talent-platform/secret-box/v1'))).toBe(true);
  expect(rotating.previous?.key('secret-box').equals(hkdf(previous, 'talent-platform/secret-box/v1'))).toBe(true);
  expect(rotating.previous?.previous).toBeNull();
  expect(purposeKeysOf({ secretsKey: current }).previous).toBeNull();
  expect(purposeKeysOf({ secretsKey: current, secretsKeyPrevious: null }).previous).toBeNull();
});

test("the root builds the app's purpose keys from its config's secrets, once per app", async () => {
  const secretsKey = randomBytes(32);
  const previous = randomBytes(32);
  const config = loadConfig({ SECRETS_ENCRYPTION_KEY: secretsKey.toString('base64'), SECRETS_ENCRYPTION_KEY_PREVIOUS: previous.toString('base64') });
  const deps = createDeps(config, { logger: testLogger() });
  const other = createDeps(config, { logger: testLogger() });
  const given = createDeps(config, { logger: testLogger(), purposeKeys: deps.purposeKeys });
  try {
    expect(deps.purposeKeys.key('csrf').equals(hkdf(secretsKey, 'talent-platform/csrf/v1'))).toBe(true);
    expect(deps.purposeKeys.previous?.key('csrf').equals(hkdf(previous, 'talent-platform/csrf/v1'))).toBe(true);
    expect(other.purposeKeys).not.toBe(deps.purposeKeys);
    expect(given.purposeKeys).toBe(deps.purposeKeys);
  } finally {
    for (const d of [deps, other, given]) await closeDeps(d);
  }
});

test('neither the master nor a derived key shows when the keys are logged, serialised or inspected', () => {
  const master = randomBytes(32);
  const previous = randomBytes(32);
  const keys = new PurposeKeys(master, previous);
  const derived = keys.key('csrf');
  const shown = [JSON.stringify({ keys }), inspect({ keys }, { depth: 10, showHidden: true }), String(inspect(keys.previous))].join('\n');
  for (const secret of [master, previous, derived]) {
    expect(shown).not.toContain(secret.toString('hex'));
    expect(shown).not.toContain(secret.toString('base64'));
    expect(shown).not.toContain(inspect(secret));
  }
  expect(shown).toContain('[redacted]');
});
