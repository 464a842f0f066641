import { loadConfig, setConfig } from '../core/config';
import { logger } from '../core/observability/logger';
import { connectStore, disconnectStore, ensureIndexes } from '../core/store/connection';
import { closeTemporalClient } from '../core/temporal/client';
import { parseArgs, UsageError } from './admin/command';
import { adminCommands } from './admin/commands';
import { applyDevEnvDefaults } from './devEnv';

/**
 * Operator CLI (DECISIONS.md "Operator CLI"): `npm run --silent admin -- <command> [--flags]`.
 * Prints one JSON object on stdout; on failure one line on stderr and a non-zero exit.
 */
function usage(): string {
  return ['usage: npm run --silent admin -- <command> [--flags]', 'commands:', ...Object.values(adminCommands).map((c) => `  ${c.usage}`)].join('\n');
}

function findCommand(words: string[]) {
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    if (adminCommands[name]) return { name, command: adminCommands[name] };
  }
  return undefined;
}

async function main(): Promise<number> {
  const { words, flags } = parseArgs(process.argv.slice(2));
  if (words.length === 0 || flags.help) {
    process.stdout.write(usage() + '\n');
    return words.length === 0 && !flags.help ? 2 : 0;
  }
  const found = findCommand(words);
  if (!found) {
    process.stderr.write(`error: unknown command "${words.join(' ')}" (run with --help for the list)\n`);
    return 2;
  }
  logger.level = 'silent';
  applyDevEnvDefaults();
  const cfg = loadConfig();
  setConfig(cfg);
  await connectStore(cfg.mongodbUri);
  try {
    await ensureIndexes();
    const result = await found.command.run(flags);
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } finally {
    await closeTemporalClient();
    await disconnectStore();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    const prefix = err instanceof UsageError ? 'usage error' : 'error';
    process.stderr.write(`${prefix}: ${err.message.split('\n').join(' ')}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
