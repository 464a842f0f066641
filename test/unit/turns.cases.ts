import { Turns } from '../../core/inTurn';

/** A call that records when it starts and ends, and finishes when `release` is called. */
function held(log: string[], name: string): { run: () => Promise<string>; release: () => void } {
  let release = () => undefined as void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    run: async () => {
      log.push(`${name} start`);
      await done;
      log.push(`${name} end`);
      return name;
    },
    release: () => release(),
  };
}

describe('turns', () => {
  test('calls with one key run one after another, in order; another key runs beside them', async () => {
    const turns = new Turns();
    const log: string[] = [];
    const [a, b, c] = [held(log, 'a'), held(log, 'b'), held(log, 'c')];
    const runs = [turns.inTurn('ledger:org_1', a.run), turns.inTurn('ledger:org_1', b.run), turns.inTurn('ledger:org_2', c.run)];
    await Promise.resolve();
    expect(log).toEqual(['a start', 'c start']);
    b.release();
    c.release();
    a.release();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect(log.indexOf('b start')).toBeGreaterThan(log.indexOf('a end'));
  });

  test('a failed call passes the turn on and keeps its own failure', async () => {
    const turns = new Turns();
    const failed = turns.inTurn('k', async () => Promise.reject(new Error('refused')));
    const next = turns.inTurn('k', async () => 'next');
    await expect(failed).rejects.toThrow('refused');
    expect(await next).toBe('next');
  });

  test("two apps' turns are their own: one app's queue never holds the other's calls", async () => {
    const [first, second] = [new Turns(), new Turns()];
    const log: string[] = [];
    const a = held(log, 'a');
    const running = first.inTurn('search:org_1', a.run);
    expect(await second.inTurn('search:org_1', async () => 'other app')).toBe('other app');
    expect(log).toEqual(['a start']);
    a.release();
    await running;
  });
});
