/**
 * Operator CLI plumbing: each area exports its commands keyed by their words
 * (`"key create"`); scripts/admin.ts finds the command, parses flags, connects to the store,
 * prints the result as one JSON object and exits non-zero with a one-line error otherwise.
 */
export type Flags = Record<string, string | true>;

export interface AdminCommand {
  usage: string;
  /** Whether the command needs a Temporal client as well as the store. */
  needsTemporal?: boolean;
  run: (flags: Flags) => Promise<unknown>;
}

export class UsageError extends Error {}

export function requireFlag(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
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
