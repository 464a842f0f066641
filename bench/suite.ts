import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { BenchFigure } from './benchResults';
import { runBench } from './benchStack';

/**
 * The suite's time as CI meets it: a fresh clone of the committed HEAD, then `bash .ci/run` in it
 * (npm ci, the README's `npm test`, the type check and the lint), BENCH_SUITE_RUNS times in a row
 * (default 3), each in a clone of its own. Records each run's wall time, jest's own time and the
 * tests' count beside the targets of the house issue (npm test <= 4 minutes, .ci/run <= 5
 * minutes, green every time).
 *
 *   npx tsx bench/suite.ts
 */
const RUNS = Number(process.env.BENCH_SUITE_RUNS ?? 3);
const TARGET_CI_S = 300;
const TARGET_TEST_S = 240;
const ROOT = join(__dirname, '..');

interface SuiteRun {
  ok: boolean;
  wallS: number;
  jestS: number | undefined;
  tests: string | undefined;
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('close', (code) => resolve({ code, out }));
  });
}

/** One fresh clone into `dir` (in the bench's temporary folder) and its `bash .ci/run`. */
async function oneRun(n: number, dir: string): Promise<SuiteRun> {
  const cloned = await run('git', ['clone', '-q', ROOT, dir], ROOT);
  if (cloned.code !== 0) throw new Error(`git clone failed: ${cloned.out}`);
  const started = performance.now();
  const ci = await run('bash', ['.ci/run'], dir);
  const wallS = (performance.now() - started) / 1000;
  const jest = /^Time:\s+([\d.]+) s/m.exec(ci.out);
  const tests = /^Tests:\s+(.+)$/m.exec(ci.out);
  const result = { ok: ci.code === 0, wallS, jestS: jest ? Number(jest[1]) : undefined, tests: tests?.[1].trim() };
  process.stdout.write(
    `run ${n}: ${result.ok ? 'green' : `FAILED (exit ${ci.code})`}, .ci/run ${wallS.toFixed(0)} s, npm test ${result.jestS ?? '?'} s, ${result.tests ?? 'no test count'}\n`,
  );
  if (!result.ok) process.stdout.write(ci.out.split('\n').slice(-60).join('\n') + '\n');
  return result;
}

runBench('suite', async (dir) => {
  const runs: SuiteRun[] = [];
  for (let n = 1; n <= RUNS; n++) runs.push(await oneRun(n, join(dir, `clone-${n}`)));
  const figures: BenchFigure[] = runs.map((r, i) => ({
    measure: `fresh clone, run ${i + 1} of ${RUNS}: \`bash .ci/run\` / jest's time for \`npm test\``,
    figure: `${r.wallS.toFixed(0)} s / ${r.jestS?.toFixed(0) ?? '?'} s, ${r.ok ? 'green' : 'failed'} (${r.tests ?? 'no test count'})`,
    target: `<= ${TARGET_CI_S} s / <= ${TARGET_TEST_S} s, green`,
    met: r.ok && r.wallS <= TARGET_CI_S && (r.jestS ?? Infinity) <= TARGET_TEST_S,
  }));
  figures.push({
    measure: 'green in a row',
    figure: `${runs.filter((r) => r.ok).length} of ${RUNS}`,
    target: `${RUNS} of ${RUNS}`,
    met: runs.every((r) => r.ok),
  });
  return figures;
});
