import { appendEntry, HEAD_HINTS_MAX, knownHead } from '../../core/credits/chain';

describe('credit chain head hints', () => {
  test('the in-process hints are bounded: the oldest chains are forgotten, recent ones kept', async () => {
    const model = { collection: { insertOne: async () => ({}) } } as never;
    for (let i = 0; i <= HEAD_HINTS_MAX; i++) await appendEntry(model, `org_${i}`, 3, {});
    expect(knownHead('org_0')).toBeUndefined();
    expect(knownHead(`org_${HEAD_HINTS_MAX}`)).toBe(3);
    expect(knownHead('org_1')).toBe(3);
  });
});
