import { createHmac, randomBytes } from 'node:crypto';
import { loadConfig } from '../../core/config';
import { derivePurposeKey, purposeKeysOf } from '../../core/crypto/purposeKeys';
import { cursorId, cursorIndex, cursorInstant, decodeListCursor, encodeListCursor } from '../../core/pageCursor';
import { Problem } from '../../core/problems';
import { decodeCursor as decodeSearchCursor, encodeCursor as encodeSearchCursor } from '../../core/talent/searchCursor';
import { decodeCursor as decodeWebhookCursor, encodeCursor as encodeWebhookCursor, endpointListScope } from '../../core/webhooks/deliveryCursor';
import { seededRandom } from '../support/seededRandom';

/**
 * Every cursor decoder the API runs, fed random and boundary input: each either returns a
 * position whose values a store query can use, or throws the typed problem (400
 * `invalid_cursor`, 410 `cursor_expired`). Anything else would reach the problem mapper as a 500.
 */
const config = loadConfig({ SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'), SEARCH_CURSOR_TTL_SECONDS: '3600' });
const keys = purposeKeysOf(config);
const ORG = 'org_1T9pEX3JhWhNaRUdTncqq6';

const BOUNDARY_NUMBERS: unknown[] = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  8.64e15,
  8.64e15 + 1,
  -8.64e15,
  -8.64e15 - 1,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e308,
  -1e308,
  1e21,
  2 ** 53,
  2 ** 64,
  -(2 ** 63),
];
/** JSON spellings JSON.parse turns into Infinity, -0 or huge values (JSON.stringify cannot write them). */
const RAW_NUMBERS = ['1e400', '-1e400', '-0', '1e-400', '123456789012345678901234567890', '9007199254740993'];
const BOUNDARY_STRINGS: unknown[] = [
  '',
  ' ',
  'job_',
  'x'.repeat(65),
  'x'.repeat(10_000),
  '\u0000',
  '💥',
  'é',
  '\ud800',
  '$where',
  '{"$gt":""}',
  'null',
  '../../etc',
  'job_ABC123',
];
const OTHER_VALUES: unknown[] = [null, true, false, [], [1], {}, { $gt: '' }, { $ne: null }, NaN, Infinity];

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)];
}

function randomText(rnd: () => number, maxLength: number): string {
  const alphabets = [
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=',
    '.%!~*\'()[]{}:;,"\\ \t\n',
    'éß漢字💥\u0000\u200b\ufeff',
  ];
  const alphabet = [...pick(rnd, alphabets)];
  const length = Math.floor(rnd() * maxLength);
  let out = '';
  for (let i = 0; i < length; i += 1) out += pick(rnd, alphabet);
  return out;
}

function randomValue(rnd: () => number, depth = 0): unknown {
  switch (Math.floor(rnd() * 7)) {
    case 0:
      return pick(rnd, BOUNDARY_NUMBERS);
    case 1:
      return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 310);
    case 2:
      return pick(rnd, BOUNDARY_STRINGS);
    case 3:
      return randomText(rnd, 80);
    case 4:
      return pick(rnd, OTHER_VALUES);
    case 5:
      return depth < 2 ? randomObject(rnd, depth + 1) : null;
    default:
      return Math.floor(rnd() * 2 ** 31);
  }
}

function randomObject(rnd: () => number, depth = 0): Record<string, unknown> {
  const keys = ['s', 'p', 't', 'id', 'i', 'seq', 'v', 'org', 'search', 'offset', 'iat', '__proto__', 'constructor', randomText(rnd, 6)];
  const out: Record<string, unknown> = {};
  const n = Math.floor(rnd() * 5);
  for (let i = 0; i < n; i += 1) out[pick(rnd, keys)] = randomValue(rnd, depth);
  return out;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** A JSON text with one raw number spliced in where `JSON.stringify` would have written a marker. */
function withRawNumber(rnd: () => number, value: Record<string, unknown>): string {
  return JSON.stringify(value).replace('"RAW"', pick(rnd, RAW_NUMBERS));
}

/** Cursors of every list's shape (right and wrong), then broken at the edges. */
function candidateCursor(rnd: () => number): string {
  const listShaped = () => {
    const position: Record<string, unknown> = pick(rnd, [
      { t: 'RAW', id: 'job_a' },
      { t: randomValue(rnd), id: randomValue(rnd) },
      { seq: 'RAW' },
      { seq: randomValue(rnd) },
      randomObject(rnd),
    ]);
    return withRawNumber(rnd, rnd() < 0.1 ? (randomValue(rnd) as Record<string, unknown>) : position);
  };
  switch (Math.floor(rnd() * 10)) {
    case 0:
      return b64(listShaped());
    case 8:
      // Signed with the key, so what the field readers do after the MAC is exercised too.
      return signedListCursor(pick(rnd, SCOPES), listShaped());
    case 1:
      return b64(JSON.stringify(randomValue(rnd)));
    case 2:
      return randomText(rnd, 600);
    case 3:
      return b64(randomText(rnd, 200));
    case 4:
      return `${b64(listShaped())}.${randomText(rnd, 50)}`;
    case 5:
      return signedSearchCursor(withRawNumber(rnd, { v: pick(rnd, [1, 2, 'RAW']), org: ORG, search: randomValue(rnd), offset: 'RAW', iat: randomValue(rnd) }));
    case 6:
      return signedSearchCursor(JSON.stringify(randomValue(rnd)));
    case 7:
      return pick(rnd, [...BOUNDARY_STRINGS.filter((s): s is string => typeof s === 'string'), '=', '==', 'a.b.c', '.', 'a.', '.a']);
    default: {
      const good = encodeListCursor(keys, DELIVERIES, { t: Date.now(), id: 'dlv_a' });
      const at = Math.floor(rnd() * good.length);
      return good.slice(0, at) + randomText(rnd, 3) + good.slice(at + 1);
    }
  }
}

/**
 * A search cursor signed with the test key over any payload: what only a holder of the key
 * could make, so the decoder's checks after the signature are exercised too.
 */
function signedSearchCursor(json: string): string {
  const key = createHmac('sha256', config.secretsKey).update('search-cursor:v1').digest();
  const payload = b64(json);
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

/**
 * A list cursor signed with the test key over any payload text (the MAC of encodeListCursor):
 * what only a holder of the key could make.
 */
function signedListCursor(scope: string, json: string): string {
  const payload = Buffer.from(json, 'utf8');
  const mac = createHmac('sha256', derivePurposeKey(config.secretsKey, 'page-cursor')).update(scope).update('\n').update(payload).digest().subarray(0, 16);
  return Buffer.concat([mac, payload]).toString('base64url');
}

type Decoder = (cursor: string) => unknown;

const JOBS = `jobs:${ORG}:ws_a:*`;
const RESULT = `result:${ORG}:job_a`;
const ENDPOINTS = endpointListScope('ws_a');
const DELIVERIES = 'webhook_deliveries:t:ws_a::::';
const SCOPES = [JOBS, RESULT, ENDPOINTS, DELIVERIES];

const DECODERS: Record<string, Decoder> = {
  'contact-retrieval jobs list': (c) => decodeListCursor(keys, c, JOBS, { t: cursorInstant, id: cursorId }),
  'job result': (c) => decodeListCursor(keys, c, RESULT, { seq: cursorIndex }),
  'webhook endpoints list': (c) => decodeWebhookCursor(keys, ENDPOINTS, c),
  'webhook deliveries list': (c) => decodeWebhookCursor(keys, DELIVERIES, c),
  'candidate search': (c) => decodeSearchCursor(config, c, ORG, Date.now()),
};

/** What a store query can hold: valid Dates, finite safe integers, short id strings. */
function usable(value: unknown): boolean {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  if (typeof value === 'number') return Number.isSafeInteger(value);
  if (typeof value === 'string') return value.length > 0 && value.length <= 64;
  if (value && typeof value === 'object') return Object.values(value).every(usable);
  return false;
}

function outcome(decode: Decoder, cursor: string): 'decoded' | 'refused' {
  let decoded: unknown;
  try {
    decoded = decode(cursor);
  } catch (err) {
    if (err instanceof Problem && ((err.code === 'invalid_cursor' && err.status === 400) || (err.code === 'cursor_expired' && err.status === 410)))
      return 'refused';
    throw new Error(`cursor ${JSON.stringify(cursor.slice(0, 200))} threw ${String(err)}`, { cause: err });
  }
  if (!usable(decoded)) throw new Error(`cursor ${JSON.stringify(cursor.slice(0, 200))} decoded to ${JSON.stringify(decoded)}`);
  return 'decoded';
}

describe.each(Object.entries(DECODERS))('the %s cursor decoder', (_name, decode) => {
  test('answers every random and boundary cursor with a usable position or the typed problem', () => {
    const seed = Number(process.env.CURSOR_PROPERTY_SEED ?? 20261125);
    const rnd = seededRandom(seed);
    const counts = { decoded: 0, refused: 0 };
    for (let i = 0; i < 3000; i += 1) counts[outcome(decode, candidateCursor(rnd))] += 1;
    expect(counts.refused).toBeGreaterThan(0);
  });

  test('a timestamp outside the Date range, NaN-like numbers and non-integers are invalid_cursor', () => {
    for (const t of ['1e400', '-1e400', '8640000000000001', '-8640000000000001', '1.5', '1e300']) {
      const cursor = signedListCursor(JOBS, `{"t":${t},"id":"job_a"}`);
      expect(() => decodeListCursor(keys, cursor, JOBS, { t: cursorInstant, id: cursorId })).toThrow(
        expect.objectContaining({ code: 'invalid_cursor', status: 400 }),
      );
      expect(() => decodeWebhookCursor(keys, DELIVERIES, signedListCursor(DELIVERIES, `{"t":${t},"id":"dlv_a"}`))).toThrow(
        expect.objectContaining({ code: 'invalid_cursor', status: 400 }),
      );
    }
  });
});

test('cursors the API makes decode back to their position', () => {
  const at = new Date('2026-11-25T15:00:00.123Z');
  expect(decodeListCursor(keys, encodeListCursor(keys, JOBS, { t: at.getTime(), id: 'job_a' }), JOBS, { t: cursorInstant, id: cursorId })).toEqual({
    t: at,
    id: 'job_a',
  });
  expect(decodeListCursor(keys, encodeListCursor(keys, RESULT, { seq: 499 }), RESULT, { seq: cursorIndex })).toEqual({ seq: 499 });
  expect(decodeWebhookCursor(keys, ENDPOINTS, encodeWebhookCursor(keys, ENDPOINTS, { createdAt: at, id: 'we_a' }))).toEqual({
    createdAt: at,
    id: 'we_a',
  });
  expect(decodeSearchCursor(config, encodeSearchCursor(config, ORG, 'srch_a', 40, Date.now()), ORG, Date.now())).toEqual({ searchId: 'srch_a', offset: 40 });
});

test("one list's cursor is refused by every other list", () => {
  const cursors = [
    encodeListCursor(keys, JOBS, { t: Date.now(), id: 'job_a' }),
    encodeListCursor(keys, RESULT, { seq: 3 }),
    encodeWebhookCursor(keys, ENDPOINTS, { createdAt: new Date(), id: 'we_a' }),
    encodeWebhookCursor(keys, DELIVERIES, { createdAt: new Date(), id: 'dlv_a' }),
    encodeSearchCursor(config, ORG, 'srch_a', 0, Date.now()),
  ];
  const decoders = Object.values(DECODERS);
  cursors.forEach((cursor, own) => {
    decoders.forEach((decode, i) => {
      if (i === own) expect(outcome(decode, cursor)).toBe('decoded');
      else expect(outcome(decode, cursor)).toBe('refused');
    });
  });
});

test('a list cursor is bound to its key and its scope: altered, re-signed elsewhere or moved to another tenant, it is refused', () => {
  const good = encodeListCursor(keys, JOBS, { n: 41 });
  expect(decodeListCursor(keys, good, JOBS, { n: cursorIndex })).toEqual({ n: 41 });
  const other = purposeKeysOf(loadConfig({ SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64') }));
  const refusals = [
    encodeListCursor(other, JOBS, { n: 41 }),
    good.slice(0, -2) + (good.endsWith('A') ? 'BA' : 'AA'),
    b64('{"n":41}'),
    b64(JSON.stringify({ s: JOBS, p: { n: 41 } })),
  ];
  for (const cursor of refusals)
    expect(() => decodeListCursor(keys, cursor, JOBS, { n: cursorIndex })).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
  expect(() => decodeListCursor(keys, good, `jobs:org_other:ws_a:*`, { n: cursorIndex })).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
});
