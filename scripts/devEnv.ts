import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEV_ENV_FILE = join(__dirname, '..', '.local', 'dev.env');

/**
 * Settings `npm run dev` generated for this checkout (the local encryption key). The operator
 * CLI and other local scripts read them as defaults, so their commands work without exports;
 * a variable set in the environment always wins.
 */
export function applyDevEnvDefaults(env: NodeJS.ProcessEnv = process.env): void {
  if (!existsSync(DEV_ENV_FILE)) return;
  for (const line of readFileSync(DEV_ENV_FILE, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m && !env[m[1]]) env[m[1]] = m[2];
  }
}
