import type { SearchScan } from '../../core/talent/rankCandidates';
import { Turns } from '../../core/inTurn';
import { runScan, SLICE_VISITS } from '../../core/talent/searchScheduling';

/** A scan of `size` candidates that records each slice it was asked for. */
function fakeScan(size: number, log: string[], name: string): SearchScan {
  let visited = 0;
  return {
    step(visits) {
      log.push(`${name}:${visits}`);
      visited = Math.min(size, visited + visits);
      return visited >= size;
    },
    get visited() {
      return visited;
    },
    outcome: () => ({ ordinals: [], total: visited, exact: visited >= size }),
  };
}

describe('search scheduling', () => {
  const turns = new Turns();

  test('a scan stops at its budget, in slices', async () => {
    const log: string[] = [];
    const out = await runScan(turns, 'org_a', fakeScan(10 * SLICE_VISITS, log, 'a'), 2.5 * SLICE_VISITS);
    expect(out).toEqual({ ordinals: [], total: 2.5 * SLICE_VISITS, exact: false });
    expect(log).toEqual([`a:${SLICE_VISITS}`, `a:${SLICE_VISITS}`, `a:${SLICE_VISITS / 2}`]);
  });

  test('a long scan yields to the event loop between slices', async () => {
    const log: string[] = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const scan = fakeScan(4 * SLICE_VISITS, log, 'a');
    const slowStep = scan.step.bind(scan);
    scan.step = (v) => {
      const until = Date.now() + 5;
      while (Date.now() < until); // a slice of real work
      return slowStep(v);
    };
    await runScan(turns, 'org_b', scan, Number.POSITIVE_INFINITY);
    clearInterval(timer);
    expect(log).toHaveLength(4);
    expect(ticks).toBeGreaterThan(0);
  });

  test("one organization's scans run one at a time; another organization's run beside them", async () => {
    const log: string[] = [];
    await Promise.all([
      runScan(turns, 'org_c', fakeScan(2 * SLICE_VISITS, log, 'c1'), Number.POSITIVE_INFINITY),
      runScan(turns, 'org_c', fakeScan(2 * SLICE_VISITS, log, 'c2'), Number.POSITIVE_INFINITY),
      runScan(turns, 'org_d', fakeScan(2 * SLICE_VISITS, log, 'd'), Number.POSITIVE_INFINITY),
    ]);
    const names = log.map((l) => l.split(':')[0]);
    expect(names.filter((x) => x.startsWith('c'))).toEqual(['c1', 'c1', 'c2', 'c2']);
    // org_d interleaves with org_c rather than waiting for both of its scans.
    expect(names.indexOf('d')).toBeLessThan(names.lastIndexOf('c2'));
  });
});
