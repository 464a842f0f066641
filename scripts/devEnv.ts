import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The git-ignored settings file of this checkout's dev stack (DEV_ENV_FILE moves it, for tests). */
export const DEFAULT_DEV_ENV_FILE = join(__dirname, '..', '.local', 'dev.env');

export function devEnvFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEV_ENV_FILE || DEFAULT_DEV_ENV_FILE;
}

/**
 * Settings `npm run dev` wrote for this checkout: the local encryption key, and the addresses
 * of the store and Temporal server it started (whatever DEV_* ports were set). The operator CLI
 * and other local scripts read them as defaults, so the commands the start prints work as
 * printed, without exports; a variable set in the environment always wins.
 */
export function applyDevEnvDefaults(env: NodeJS.ProcessEnv = process.env): void {
  const file = devEnvFile(env);
  if (!existsSync(file)) return;
  for (const [name, value] of Object.entries(readDevEnv(file))) {
    if (!env[name]) env[name] = value;
  }
}

export function readDevEnv(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const values: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) values[m[1]] = m[2];
  }
  return values;
}

/** Rewrites the file with these values (owner-only: it holds the local encryption key). */
export function writeDevEnv(file: string, values: Record<string, string>): void {
  const body = Object.entries(values)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
  writeFileSync(file, `# written by npm run dev; local only, git-ignored\n${body}\n`, { mode: 0o600 });
}
