import { curlLines, firstKeyChoice, keyCreateCommand } from '../../scripts/devFirstKey';

describe('the development key of a first start', () => {
  const base = { nodeEnv: 'development', storeSupplied: false, askedFor: false, skipped: false };

  test('made on a development start with its own store', () => {
    expect(firstKeyChoice(base).allowed).toBe(true);
    expect(firstKeyChoice({ ...base, nodeEnv: undefined }).allowed).toBe(true);
  });

  test('never in production, not even when asked', () => {
    expect(firstKeyChoice({ ...base, nodeEnv: 'production' })).toMatchObject({ allowed: false, reason: expect.stringContaining('production') });
    expect(firstKeyChoice({ ...base, nodeEnv: 'production', askedFor: true }).allowed).toBe(false);
  });

  test('not in a store the person supplied unless asked, and never when skipped', () => {
    expect(firstKeyChoice({ ...base, storeSupplied: true })).toMatchObject({ allowed: false, reason: expect.stringContaining('--dev-key') });
    expect(firstKeyChoice({ ...base, storeSupplied: true, askedFor: true }).allowed).toBe(true);
    expect(firstKeyChoice({ ...base, skipped: true }).allowed).toBe(false);
  });

  test('printed commands carry the key, the URL and a valid idempotency key', () => {
    const [whoami, search] = curlLines('http://127.0.0.1:9999', 'sk_live_ext_abc');
    expect(whoami).toBe('curl -sS -H "Authorization: Bearer sk_live_ext_abc" http://127.0.0.1:9999/v1/whoami');
    expect(search).toContain('http://127.0.0.1:9999/v1/candidates/search');
    expect(search).toMatch(/Idempotency-Key: [A-Za-z0-9][A-Za-z0-9._:-]{7,127}"/);
    expect(keyCreateCommand('admin', { org_id: 'org_1', workspace_id: 'ws_1' })).toContain(
      'key create --org org_1 --workspace ws_1 --scopes candidates.search,',
    );
  });
});
