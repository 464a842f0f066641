import { flagsOfUsage, parseCommandFlags, UsageError } from '../../scripts/admin/command';
import { adminCommands } from '../../scripts/admin/commands';
import { runAdmin, runAdminInProcess, type AdminResult } from '../support/adminCli';

// Usage errors are found before the CLI reads any configuration or connects to anything, so
// these run the CLI with an empty environment: every command's cases through its entry function
// in this process, and one mistyped flag as a real process.

const commands = Object.entries(adminCommands).map(([name, command]) => {
  const valueFlags = Object.entries(command.flags ?? flagsOfUsage(command.usage))
    .filter(([, type]) => type === 'string')
    .map(([f]) => f);
  return { name, command, words: name.split(' '), valueFlag: valueFlags[0] as string | undefined };
});

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('operator CLI flags, parsed strictly', () => {
  test('every command names at least the flags its usage shows, and --help', () => {
    for (const { command } of commands) expect(flagsOfUsage(command.usage)).toHaveProperty('help', 'boolean');
    expect(flagsOfUsage('m2m rotate --client-id C [--grace-seconds S] (note)')).toEqual({ help: 'boolean', 'client-id': 'string', 'grace-seconds': 'string' });
    expect(flagsOfUsage('user grants revoke --user-id U [--client-id C] [--force]')).toEqual({
      help: 'boolean',
      'user-id': 'string',
      'client-id': 'string',
      force: 'boolean',
    });
    expect(flagsOfUsage('budget set --org O [--family F] --amount N|none   (remaining spend)')).toMatchObject({ amount: 'string', family: 'string' });
  });

  test('a misspelt flag names itself and the flag meant', () => {
    const rotate = adminCommands['m2m rotate'];
    expect(usageError(() => parseCommandFlags('m2m rotate', rotate, ['--client-id', 'C', '--grace-second', '0']))).toBe(
      'unknown flag --grace-second for "m2m rotate" (did you mean --grace-seconds?)',
    );
    expect(usageError(() => parseCommandFlags('m2m rotate', rotate, ['--client-id', 'C', '--frobnicate']))).toMatch(
      /^unknown flag --frobnicate for "m2m rotate" \(usage: m2m rotate --client-id … --grace-seconds …\)$/,
    );
    expect(usageError(() => parseCommandFlags('m2m rotate', rotate, ['-c', 'C']))).toMatch(/unknown flag -c/);
  });

  test('a missing value, a value given twice, a value for a switch and a stray word are usage errors', () => {
    const create = adminCommands['org create'];
    expect(usageError(() => parseCommandFlags('org create', create, ['--name']))).toMatch(/^--name needs a value/);
    expect(usageError(() => parseCommandFlags('org create', create, ['--name', '--credits', '5']))).toMatch(/^--name needs a value/);
    expect(usageError(() => parseCommandFlags('org create', create, ['--name', 'A', '--name', 'B']))).toBe('--name is given twice for "org create"');
    expect(usageError(() => parseCommandFlags('org create', create, ['--name', 'A', 'B']))).toMatch(/^unexpected word "B"/);
    expect(usageError(() => parseCommandFlags('org create', create, ['--help=yes']))).toBe('--help takes no value');
  });

  test('values are read as given, including one starting with a dash when written with =', () => {
    expect(parseCommandFlags('org create', adminCommands['org create'], ['--name', 'Acme', '--credits=-5'])).toEqual({ name: 'Acme', credits: '-5' });
    expect(parseCommandFlags('m2m signing-key rotate', adminCommands['m2m signing-key rotate'], [])).toEqual({});
  });
});

describe('the operator CLI exits 2 on a usage error, for every command', () => {
  function expectUsageError(r: AdminResult, mentions: string) {
    expect({ status: r.status, stdout: r.stdout, lines: r.stderr.trim().split('\n').length }).toEqual({ status: 2, stdout: '', lines: 1 });
    expect(r.stderr).toMatch(/^usage error: /);
    expect(r.stderr).toContain(mentions);
  }

  test.each(['unknown flag', 'missing value'] as const)('%s', async (kind) => {
    const cases = commands.map(({ name, words, valueFlag }) => {
      if (kind === 'unknown flag') {
        const typo = valueFlag ? `--${valueFlag}s` : '--bogus';
        return { name, args: [...words, typo, 'x'], mentions: typo };
      }
      // A command without value flags gets a stray word instead, the other way a value goes astray.
      return valueFlag
        ? { name, args: [...words, `--${valueFlag}`], mentions: `--${valueFlag} needs a value` }
        : { name, args: [...words, 'x'], mentions: 'unexpected word "x"' };
    });
    const results: AdminResult[] = [];
    for (const c of cases) results.push(await runAdminInProcess(c.args));
    cases.forEach((c, i) => {
      try {
        expectUsageError(results[i], c.mentions);
      } catch (err) {
        throw new Error(`${c.name}: ${c.args.join(' ')} → ${JSON.stringify(results[i])}: ${(err as Error).message}`, { cause: err });
      }
    });
  });

  test('the typo from the issue, as a real process', () => {
    const typo = runAdmin(undefined, ['m2m', 'rotate', '--client-id', 'cli_x', '--grace-second', '0']);
    expectUsageError(typo, 'unknown flag --grace-second for "m2m rotate" (did you mean --grace-seconds?)');
  });

  test('an unknown command and --help', async () => {
    expectUsageError(await runAdminInProcess(['m2m', 'rotat', '--client-id', 'cli_x']), 'did you mean "m2m rotate"?');
    expectUsageError(await runAdminInProcess(['m2m', 'rotate', 'now', '--client-id', 'cli_x']), 'unexpected word "now"');
    const help = await runAdminInProcess(['m2m', 'rotate', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('m2m rotate --client-id C [--grace-seconds S]');
  });
});
