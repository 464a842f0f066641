import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Config } from '../../core/config';
import type { Deps } from '../../core/deps';
import { sharedSettings } from './testConfig';
import { TYPESCRIPT_NODE_ARGS } from './typescriptProcess';

export interface AdminResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON, or undefined when it is not one JSON document. */
  json: any;
}

const ROOT = join(__dirname, '..', '..');

/** The environment an operator's shell gives the CLI: the test file's store, Temporal and secrets key; nothing else. */
export function adminEnv(config?: Config, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...(config
      ? {
          MONGODB_URI: config.mongodbUri,
          TEMPORAL_ADDRESS: config.temporal.address,
          TEMPORAL_TASK_QUEUE: config.temporal.taskQueue,
          SECRETS_ENCRYPTION_KEY: config.secretsKey.toString('base64'),
          ...sharedSettings(config),
        }
      : {}),
    ...extra,
  };
}

function result(status: number | null, stdout: string, stderr: string): AdminResult {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { status, stdout, stderr, json };
}

// Node runs the CLI in one process (`tsx`'s own CLI would start a second node for it), its
// sources compiled as jest compiles them (see typescriptProcess.ts).
const cliArgs = (args: string[]) => [...TYPESCRIPT_NODE_ARGS, 'scripts/admin.ts', ...args];

/**
 * Runs the operator CLI exactly as an operator would (`npm run --silent admin -- …`), against
 * `config`'s store: the one way tests run it as a process. Each run is a fresh node process
 * (about a second of CPU), slow on a loaded machine: a test of anything but the process itself
 * uses `runAdminWith`.
 */
export function runAdmin(config: Config | undefined, args: string[], extraEnv: Record<string, string> = {}, { timeoutMs = 60_000 } = {}): AdminResult {
  const r = spawnSync(process.execPath, cliArgs(args), { cwd: ROOT, env: adminEnv(config, extraEnv), encoding: 'utf8', timeout: timeoutMs });
  return result(r.status, r.stdout, r.stderr);
}

/** The CLI's own entry (`runAdminCli`) in this process, its output captured. */
async function runInProcess(args: string[], open: () => Promise<Deps>): Promise<AdminResult> {
  const { runAdminCli } = await import('../../scripts/admin/cli');
  let stdout = '';
  let stderr = '';
  const status = await runAdminCli(args, { out: { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, open });
  return result(status, stdout, stderr);
}

/**
 * The CLI's own entry (`runAdminCli`) in this process, for tables of cases that end before the
 * CLI asks for its dependencies (usage errors): one process per case would cost seconds.
 */
export function runAdminInProcess(args: string[]): Promise<AdminResult> {
  return runInProcess(args, () => Promise.reject(new Error('this case was to end before the CLI opened its dependencies')));
}

/**
 * The operator CLI run by its own entry (`runAdminCli`) in this process, with the test file's
 * dependencies as its root's: the test's store connection and Temporal clients, which the CLI
 * neither opens nor closes. Same parsing, commands, output and exit codes as a process, in
 * milliseconds instead of a node start-up per call; `runAdmin` keeps the few tests of the
 * process itself (environment, exit status, streams).
 */
export function runAdminWith(deps: Deps, args: string[]): Promise<AdminResult> {
  return runInProcess(args, async () => deps);
}
