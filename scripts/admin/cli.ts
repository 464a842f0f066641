import type { Deps } from '../../core/deps';
import { closestFlag, parseCommandFlags, splitCommandWords, UsageError } from './command';
import { adminCommands } from './commands';

/** Where the CLI writes: the process's streams, or a test's buffers. */
export interface CliOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processOutput: CliOutput = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };

/** What a run of the CLI gets from its composition root. */
export interface AdminCliRoot {
  /** Where it writes; the process's streams by default. */
  out?: CliOutput;
  /**
   * The dependencies the command runs with (config, store, Temporal clients), asked for only once
   * a command and its flags are known, so a usage error touches nothing. Whoever opens them
   * closes them: the CLI never does.
   */
  open: () => Promise<Deps>;
}

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

async function run(argv: string[], out: CliOutput, open: () => Promise<Deps>): Promise<number> {
  const { words, rest } = splitCommandWords(argv);
  if (words.length === 0) {
    out.stdout(usage() + '\n');
    return rest.includes('--help') ? 0 : 2;
  }
  const found = findCommand(words);
  if (!found) {
    const close = closestFlag(words.join(' '), Object.keys(adminCommands));
    throw new UsageError(`unknown command "${words.join(' ')}" (${close ? `did you mean "${close}"? ` : ''}run with --help for the list)`);
  }
  // Words after the command's own are stray: parseArgs refuses them with the flags.
  const strayWords = words.slice(found.name.split(' ').length);
  const flags = parseCommandFlags(found.name, found.command, [...strayWords, ...rest]);
  if (flags.help) {
    out.stdout(`usage: npm run --silent admin -- ${found.command.usage}\n`);
    return 0;
  }
  const result = await found.command.run(flags, await open());
  out.stdout(JSON.stringify(result) + '\n');
  return 0;
}

/**
 * The operator CLI (DECISIONS.md "Operator CLI") minus the process: returns the exit code.
 * One JSON object on stdout on success; one line on stderr otherwise, with exit 2 for a usage
 * error (unknown command or flag, missing value, stray word) and 1 for any other failure.
 */
export async function runAdminCli(argv: string[], { out = processOutput, open }: AdminCliRoot): Promise<number> {
  try {
    return await run(argv, out, open);
  } catch (err) {
    const usageError = err instanceof UsageError;
    out.stderr(`${usageError ? 'usage error' : 'error'}: ${(err as Error).message.split('\n').join(' ')}\n`);
    return usageError ? 2 : 1;
  }
}
