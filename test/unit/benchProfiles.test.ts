import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordsWith, type BenchRecord } from '../../bench/benchResults';
import { costsByArea, topCosts } from '../../bench/cpuProfileSummary';
import { commandsPerThousand, parseRequestCounters } from '../../bench/storeCommands';
import { parsePprofTop } from '../../bench/storeCpuProfile';

/** How the request-path benchmark names the top costs of its profiles (docs/performance.md "Where the time goes"). */
describe('profile summaries', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-profiles-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a V8 profile is summarized over the window asked for, by function and by area', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 });
    const file = join(dir, 'api.cpuprofile');
    writeFileSync(
      file,
      JSON.stringify({
        nodes: [
          { id: 1, callFrame: frame('(root)', '') },
          { id: 2, callFrame: frame('(idle)', '') },
          { id: 3, callFrame: frame('compile', 'node:internal/modules/cjs/loader') },
          { id: 4, callFrame: frame('writeCommand', 'file:///srv/node_modules/mongodb/lib/cmap/connection.js') },
          { id: 5, callFrame: frame('(garbage collector)', '') },
        ],
        startTime: 1_000,
        // start-up (compile) before the window, then the load: mongodb 3 ticks, gc 1, idle 2
        samples: [3, 3, 4, 4, 2, 4, 5, 2],
        timeDeltas: [10, 10, 100, 100, 100, 100, 100, 100],
      }),
    );
    const window = { fromUs: 1_100, toUs: 2_000 };
    expect(topCosts(file, 5, window)).toEqual([
      { name: 'writeCommand (mongodb)', share: 0.75 },
      { name: '(garbage collector)', share: 0.25 },
    ]);
    expect(costsByArea(file, 5, window).map((c) => c.name)).toEqual(['mongodb', '(garbage collector)']);
    // The whole run includes start-up.
    expect(topCosts(file, 5).map((c) => c.name)).toContain('compile (node:internal/modules/cjs/loader)');
  });

  test("go tool pprof's top rows become shares, self or cumulative", () => {
    const out = [
      'Showing nodes accounting for 1.20s, 60.00% of 2s total',
      '      flat  flat%   sum%        cum   cum%',
      '     0.31s 15.50% 15.50%      0.31s 15.50%  internal/runtime/syscall/linux.Syscall6',
      '         0     0% 15.50%      0.90s 45.00%  github.com/FerretDB/FerretDB/internal/handler.(*Handler).MsgInsert',
    ].join('\n');
    expect(parsePprofTop(out, 5)).toEqual([
      { name: 'internal/runtime/syscall/linux.Syscall6', share: 0.155 },
      { name: 'github.com/FerretDB/FerretDB/internal/handler.(*Handler).MsgInsert', share: 0 },
    ]);
    expect(parsePprofTop(out, 1, 'cum')).toEqual([{ name: 'internal/runtime/syscall/linux.Syscall6', share: 0.155 }]);
    expect(parsePprofTop(out, 5, 'cum')[1].share).toBe(0.45);
  });

  test("the store's commands per 1,000 requests come from its request counters, by command, the busiest first", () => {
    const metrics = (insert: number, del: number) =>
      [
        '# TYPE ferretdb_client_requests_total counter',
        `ferretdb_client_requests_total{command="insert",opcode="OP_MSG"} ${insert}`,
        `ferretdb_client_requests_total{command="delete",opcode="OP_MSG"} ${del}`,
        'ferretdb_client_requests_total{command="ping",opcode="OP_MSG"} 3',
        'ferretdb_client_responses_total{argument="unknown",command="insert",opcode="OP_MSG",result="ok"} 9999',
      ].join('\n');
    const before = parseRequestCounters(metrics(100, 50));
    expect(before).toEqual({ insert: 100, delete: 50, ping: 3 });
    // 2,000 requests: 700 inserts and 150 deletes; the unchanged ping is left out.
    expect(commandsPerThousand(before, parseRequestCounters(metrics(800, 200)), 2000)).toEqual([
      ['insert', 350],
      ['delete', 75],
    ]);
  });
});

/** How a run's figures replace earlier ones in docs/benchmark-results.json. */
describe('benchmark results sections', () => {
  const record = (bench: string, figure = '1'): BenchRecord => ({
    bench,
    command: 'npx tsx bench/api.ts',
    settings: {},
    date: '2026-11-28 22:35 UTC',
    machine: 'test',
    loadAtStart: '0.1 / 0.1 / 0.1',
    figures: [{ measure: 'm', figure }],
  });

  test('a whole run replaces its own section and those of its partial runs, and no other bench', () => {
    const before = [record('api'), record('api (cold)'), record('api (cold, common)'), record('apis'), record('console')];
    const after = recordsWith(before, record('api', '2'));
    expect(after.map((r) => r.bench)).toEqual(['api', 'apis', 'console']);
    expect(after[0].figures[0].figure).toBe('2');
  });

  test('a partial run replaces only its own section', () => {
    const after = recordsWith([record('api'), record('api (cold)')], record('api (cold)', '3'));
    expect(after.map((r) => [r.bench, r.figures[0].figure])).toEqual([
      ['api', '1'],
      ['api (cold)', '3'],
    ]);
  });
});
