import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { LoadPlan, LoadResult } from './loadGenerator';

/** Runs one load plan in a separate generator process (bench/loadGenerator.ts) and returns its figures. */
export function runLoad(plan: LoadPlan): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'loadGenerator.ts'), JSON.stringify(plan)], {
      cwd: join(__dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
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
