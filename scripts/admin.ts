import { loadConfig } from '../core/config';
import { closeDeps, openDeps, type Deps } from '../core/deps';
import { createLogger } from '../core/observability/logger';
import { runAdminCli } from './admin/cli';
import { applyDevEnvDefaults } from './devEnv';

/**
 * Operator CLI (DECISIONS.md "Operator CLI"): `npm run --silent admin -- <command> [--flags]`.
 * Prints one JSON object on stdout; on failure one line on stderr and a non-zero exit (2 for a
 * usage error).
 *
 * The CLI's composition root: once a command is known it loads the config from the environment
 * (and the dev stack's settings file), connects the store and builds the dependencies the
 * command runs with; it closes them (Temporal clients, store) before the process exits.
 */
async function main(argv: string[]): Promise<number> {
  let deps: Deps | undefined;
  try {
    return await runAdminCli(argv, {
      open: async () => {
        applyDevEnvDefaults();
        // Commands print their one JSON answer; the logger stays quiet.
        deps = await openDeps(loadConfig(), { logger: createLogger({ level: 'silent' }) });
        return deps;
      },
    });
  } finally {
    if (deps) await closeDeps(deps);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`error: ${err.message.split('\n').join(' ')}\n`);
    process.exit(1);
  },
);
