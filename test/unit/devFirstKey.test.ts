import { spawnSync } from 'node:child_process';
import { firstCallGuide, firstSessionCommands } from '../../api/reference/firstCallGuide';
import { firstKeyChoice, firstSessionLines, keyCreateCommand } from '../../scripts/devFirstKey';

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

  const person = { person_id: 'per_abc123', name: "Siobhan O'Neil", profile_url: 'https://talent.example/in/siobhan-oneil-1' };

  /** What curl would be handed by the shell for a printed line: its arguments, one per line. */
  function curlArguments(line: string): string[] {
    const r = spawnSync('sh', ['-c', `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }; ${line}`], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    return r.stdout.split('\n');
  }
  const bodyOf = (line: string) => JSON.parse(curlArguments(line).find((a) => a.startsWith('{'))!);

  test('the printed session: the key, every step with real ids, portable idempotency keys, and a match over the default threshold', () => {
    const lines = firstSessionLines('http://127.0.0.1:9999', 'sk_live_ext_abc', person);
    expect(lines[0]).toBe('export API_KEY=sk_live_ext_abc');
    const joined = lines.join('\n');
    for (const path of ['/v1/whoami', '/v1/candidates/search', '/v1/profiles/unlock', '/v1/person-matches', '/v1/contact-retrieval-jobs', '/v1/job-results/'])
      expect(joined).toContain(`http://127.0.0.1:9999${path}`);
    expect(joined).not.toContain('uuidgen');
    const keys = [...joined.matchAll(/Idempotency-Key: ([^"]*)"/g)].map((m) => m[1]);
    expect(keys).toHaveLength(4);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/);
    expect(bodyOf(lines.find((l) => l.includes('/v1/profiles/unlock'))!)).toEqual({ person_id: 'per_abc123' });
    // A profile URL is a strong identifier (0.99), over the default min_confidence 0.8; the apostrophe survives the shell.
    expect(bodyOf(lines.find((l) => l.includes('/v1/person-matches'))!)).toEqual({ name: "Siobhan O'Neil", profile_url: person.profile_url });
    const job = lines.find((l) => l.startsWith('JOB_ID=$('))!;
    expect(bodyOf(job.slice(job.indexOf('curl '), job.indexOf(' | node')))).toEqual({
      person_ids: ['per_abc123'],
      fields: ['email'],
    });
  });

  test("the reference's First call is the same session, with node-made idempotency keys and ids read from the answers", () => {
    const guide = firstCallGuide('https://api.example.com');
    expect(guide).not.toContain('uuidgen');
    expect(guide).toContain(`Idempotency-Key: $(node -p 'crypto.randomUUID()')`);
    const generic = curlArguments('PERSON_ID=per_x; NAME="A B"; PROFILE_URL=https://p/1; ' + guide.split('\n').find((l) => l.includes('/v1/person-matches'))!);
    expect(JSON.parse(generic.find((a) => a.startsWith('{'))!)).toEqual({ name: 'A B', profile_url: 'https://p/1' });
    for (const path of ['/v1/candidates/search', '/v1/profiles/unlock', '/v1/person-matches', '/v1/contact-retrieval-jobs', '/v1/job-results/$JOB_ID'])
      expect(guide).toContain(`https://api.example.com${path}`);
  });

  test('the first session waits until the job is no longer running before it reads the result', () => {
    for (const lines of [
      firstCallGuide('https://api.example.com').split('\n'),
      firstSessionCommands({ baseUrl: 'http://127.0.0.1:8080', key: 'sk_live_ext_x' }),
    ]) {
      const wait = lines.findIndex((l) => /^while .*\/v1\/contact-retrieval-jobs\/\$JOB_ID.*= running \]; do sleep 1; done$/.test(l));
      const result = lines.findIndex((l) => l.includes('/v1/job-results/$JOB_ID'));
      const created = lines.findIndex((l) => l.startsWith('JOB_ID='));
      expect({ created: created >= 0, waitsAfterCreate: wait > created, readsAfterWait: result > wait }).toEqual({
        created: true,
        waitsAfterCreate: true,
        readsAfterWait: true,
      });
    }
  });

  test('the key-create command names the organization and workspace', () => {
    expect(keyCreateCommand('admin', { org_id: 'org_1', workspace_id: 'ws_1' })).toContain(
      'key create --org org_1 --workspace ws_1 --scopes candidates.search,',
    );
  });
});
