import { appendEntry, ChainHeads, HEAD_HINTS_MAX } from '../../core/credits/chain';

/** A bound small enough to fill in a unit test; the default is checked to be the one the apps use. */
const MAX = 100;

describe('credit chain head hints', () => {
  const model = { collection: { insertOne: async () => ({}) } } as never;

  test('the hints are bounded: the oldest chains are forgotten, recent ones kept', async () => {
    const heads = new ChainHeads(MAX);
    for (let i = 0; i <= MAX; i++) await appendEntry(model, `org_${i}`, 3, {}, heads);
    expect(heads.known('org_0')).toBeUndefined();
    expect(heads.known(`org_${MAX}`)).toBe(3);
    expect(heads.known('org_1')).toBe(3);
    expect(new ChainHeads().max).toBe(HEAD_HINTS_MAX);
  });

  test('each owner learns only its own appends, and a late one never moves a hint back', async () => {
    const mine = new ChainHeads();
    const theirs = new ChainHeads();
    await appendEntry(model, 'org_a', 5, {}, mine);
    await appendEntry(model, 'org_a', 4, {}, mine);
    expect(mine.known('org_a')).toBe(5);
    expect(theirs.known('org_a')).toBeUndefined();
    mine.forget('org_a');
    expect(mine.known('org_a')).toBeUndefined();
  });
});
