import { appendEntry, ChainHeads, HEAD_HINTS_MAX } from '../../core/credits/chain';

describe('credit chain head hints', () => {
  const model = { collection: { insertOne: async () => ({}) } } as never;

  test('the hints are bounded: the oldest chains are forgotten, recent ones kept', async () => {
    const heads = new ChainHeads();
    for (let i = 0; i <= HEAD_HINTS_MAX; i++) await appendEntry(model, `org_${i}`, 3, {}, heads);
    expect(heads.known('org_0')).toBeUndefined();
    expect(heads.known(`org_${HEAD_HINTS_MAX}`)).toBe(3);
    expect(heads.known('org_1')).toBe(3);
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
