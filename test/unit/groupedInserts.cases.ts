import type { Collection } from 'mongodb';
import { GroupedInserts } from '../../core/store/groupedInserts';

/** A collection that records each insertMany command and refuses `_id`s it has seen (as a unique index would). */
function recordingCollection() {
  const commands: string[][] = [];
  const ids = new Set<string>();
  const collection = {
    insertMany: async (docs: Array<{ _id: string }>) => {
      commands.push(docs.map((d) => d._id));
      const writeErrors: Array<{ index: number; code: number }> = [];
      docs.forEach((d, index) => {
        if (ids.has(d._id)) writeErrors.push({ index, code: 11000 });
        else ids.add(d._id);
      });
      // A command that takes a moment, so later inserts arrive while one is in flight.
      await new Promise((r) => setTimeout(r, 2));
      if (writeErrors.length) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000, writeErrors });
      return { insertedCount: docs.length };
    },
  };
  return { commands, collection: collection as unknown as Collection<{ _id: string }> };
}

describe('grouped inserts', () => {
  test('inserts asked for in one synchronous step travel as one command, each still decided alone', async () => {
    const { commands, collection } = recordingCollection();
    const inserts = new GroupedInserts(() => collection);
    const first = await Promise.all([inserts.insertOnce({ _id: 'w:1' }), inserts.insertOnce({ _id: 'l:1' })]);
    expect(first).toEqual([true, true]);
    expect(commands).toEqual([['w:1', 'l:1']]);
    const again = await Promise.all([inserts.insertOnce({ _id: 'w:1' }), inserts.insertOnce({ _id: 'l:2' }), inserts.insertOnce({ _id: 'l:2' })]);
    expect(again).toEqual([false, true, false]);
  });

  test('inserts asked for while a command is on its way go together in the next one', async () => {
    const { commands, collection } = recordingCollection();
    const inserts = new GroupedInserts(() => collection);
    const a = inserts.insertOnce({ _id: 'a' });
    await Promise.resolve();
    await Promise.resolve();
    const rest = [inserts.insertOnce({ _id: 'b' }), inserts.insertOnce({ _id: 'c' })];
    expect(await Promise.all([a, ...rest])).toEqual([true, true, true]);
    expect(commands).toEqual([['a'], ['b', 'c']]);
  });

  test('with a spacing, inserts asked for soon after a command share the next one; after a quiet spell one goes at once', async () => {
    const { commands, collection } = recordingCollection();
    let now = 1000;
    const inserts = new GroupedInserts(
      () => collection,
      5,
      () => now,
    );
    // The first goes at once: nothing went out in the last 5 ms.
    await inserts.insertOnce({ _id: 'a' });
    expect(commands).toEqual([['a']]);
    // Asked for one after another (not in one step) within the spacing: one command.
    const b = inserts.insertOnce({ _id: 'b' });
    await Promise.resolve();
    const c = inserts.insertOnce({ _id: 'c' });
    expect(await Promise.all([b, c])).toEqual([true, true]);
    expect(commands).toEqual([['a'], ['b', 'c']]);
    now += 1000;
    await inserts.insertOnce({ _id: 'd' });
    expect(commands).toEqual([['a'], ['b', 'c'], ['d']]);
  });
});
