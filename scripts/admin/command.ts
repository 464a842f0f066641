import { parseArgs as parseArgv, type ParseArgsConfig } from 'node:util';
import type { Deps } from '../../core/deps';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';

/**
 * Operator CLI plumbing: each area exports its commands keyed by their words
 * (`"key create"`); scripts/admin/cli.ts finds the command, parses its flags strictly, runs it
 * with the dependencies the process's root (scripts/admin.ts) built, prints the result as one
 * JSON object and exits non-zero with a one-line error otherwise (2 for a usage error, so a
 * typo never runs a command with a default in its place).
 */
export type Flags = Record<string, string | true>;

export interface AdminCommand {
  /** `words --flag V [--optional V] [--switch]`; the flags it names are the only ones accepted. */
  usage: string;
  /** Overrides the flags read from `usage`, for a usage string that cannot say them plainly. */
  flags?: Record<string, 'string' | 'boolean'>;
  /** Runs with what the CLI's root built: the loaded config, the connected store, Temporal clients connected on first use. */
  run: (flags: Flags, deps: Deps) => Promise<unknown>;
}

export class UsageError extends Error {}

export function requireFlag(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** A comma list of permission names; `all` is every permission there is. */
export function permissionsFlag(flags: Flags, name: string): string[] {
  const v = requireFlag(flags, name).trim();
  if (v === 'all') return [...ALL_PERMISSIONS];
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function optionalFlag(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

export function intFlag(flags: Flags, name: string, opts: { required?: boolean; min?: number } = {}): number | undefined {
  const raw = opts.required ? requireFlag(flags, name) : optionalFlag(flags, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < (opts.min ?? 0)) throw new UsageError(`--${name} must be an integer >= ${opts.min ?? 0}`);
  return n;
}

/**
 * The flags a usage string names: `--name X` takes a value, `[--name]` or `--name (…)` is a
 * switch. Every command also accepts `--help`.
 */
export function flagsOfUsage(usage: string): Record<string, 'string' | 'boolean'> {
  const flags: Record<string, 'string' | 'boolean'> = { help: 'boolean' };
  for (const m of usage.matchAll(/--([a-z][a-z0-9-]*)(?:[ =]([^\s]*))?/g)) {
    const next = m[2] ?? '';
    flags[m[1]] = next === '' || /^[-[\]|(]/.test(next) ? 'boolean' : 'string';
  }
  return flags;
}

/** Splits argv into the leading command words and the rest (flags and anything after them). */
export function splitCommandWords(argv: string[]): { words: string[]; rest: string[] } {
  const firstFlag = argv.findIndex((a) => a.startsWith('-'));
  const end = firstFlag === -1 ? argv.length : firstFlag;
  return { words: argv.slice(0, end), rest: argv.slice(end) };
}

/**
 * Parses one command's flags with `node:util` parseArgs in strict mode: an unknown flag, a
 * missing value, a value given twice or a stray word is a UsageError naming it.
 */
export function parseCommandFlags(name: string, command: AdminCommand, args: string[]): Flags {
  const known = command.flags ?? flagsOfUsage(command.usage);
  const options: ParseArgsConfig['options'] = Object.fromEntries(Object.entries(known).map(([flag, type]) => [flag, { type }]));
  let parsed: ReturnType<typeof parseArgv>;
  try {
    parsed = parseArgv({ args, options, strict: true, allowPositionals: false, tokens: true });
  } catch (err) {
    throw new UsageError(explainParseError(name, known, args, err as Error));
  }
  const seen = new Set<string>();
  for (const t of parsed.tokens ?? []) {
    if (t.kind !== 'option') continue;
    if (seen.has(t.name)) throw new UsageError(`--${t.name} is given twice for "${name}"`);
    seen.add(t.name);
  }
  return parsed.values as Flags;
}

function explainParseError(name: string, known: Record<string, 'string' | 'boolean'>, args: string[], err: Error): string {
  const { tokens = [] } = parseArgv({
    args,
    options: Object.fromEntries(Object.entries(known).map(([f, type]) => [f, { type }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const t of tokens) {
    if (t.kind === 'positional') return `unexpected word "${t.value}" (usage: ${usageLine(name, known)})`;
    if (t.kind !== 'option') continue;
    if (!(t.name in known)) {
      const close = closestFlag(t.name, Object.keys(known));
      return `unknown flag ${t.rawName} for "${name}" (${close ? `did you mean --${close}?` : `usage: ${usageLine(name, known)}`})`;
    }
    if (known[t.name] === 'string' && (t.value === undefined || (t.inlineValue === false && t.value.startsWith('-')))) {
      return `${t.rawName} needs a value (write ${t.rawName}=VALUE for a value starting with "-")`;
    }
    if (known[t.name] === 'boolean' && t.inlineValue) return `${t.rawName} takes no value`;
  }
  return err.message.split('\n')[0];
}

function usageLine(name: string, known: Record<string, 'string' | 'boolean'>): string {
  const flags = Object.entries(known)
    .filter(([f]) => f !== 'help')
    .map(([f, type]) => (type === 'string' ? `--${f} …` : `--${f}`));
  return [name, ...flags].join(' ');
}

/** The known flag nearest to a misspelt one (edit distance), when it is near enough to be the one meant. */
export function closestFlag(given: string, known: string[]): string | undefined {
  let best: { flag: string; distance: number } | undefined;
  for (const flag of known) {
    const distance = editDistance(given, flag);
    if (!best || distance < best.distance) best = { flag, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(given.length / 3)) ? best.flag : undefined;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** The lenient parser `npm run seed` and `npm run token` still use: words anywhere, unknown flags kept. */
export function parseArgs(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[a.slice(2)] = argv[++i];
      else flags[a.slice(2)] = true;
    } else {
      words.push(a);
    }
  }
  return { words, flags };
}
