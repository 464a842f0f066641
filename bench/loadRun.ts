import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SENDING_LINE, type LoadPlan, type LoadResult } from './loadGenerator';

/**
 * Runs one load plan in a separate generator process (bench/loadGenerator.ts) and returns its
 * figures. `onSending` is called once the generator has loaded, warmed itself and starts sending, so a load that
 * must already be running before another is measured can be waited for.
 */
export function runLoad(plan: LoadPlan, onSending?: () => void): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'loadGenerator.ts'), JSON.stringify(plan)], {
      cwd: join(__dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (onSending && out.startsWith(`${SENDING_LINE}\n`)) {
        onSending();
        onSending = undefined;
      }
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load generator exited ${code}: ${err}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as LoadResult);
      } catch {
        reject(new Error(`load generator printed no result: ${out}${err}`));
      }
    });
  });
}
