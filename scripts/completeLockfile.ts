/**
 * Adds the lockfile entries of other platforms' optional binaries that `npm install` leaves out
 * when the registry it reaches does not serve them (this machine kind's mirror answers 404 for
 * `@swc/core-darwin-arm64` and the like). Without them `npm ci` refuses the lockfile as out of sync.
 * Each entry carries the version its parent pins and the platform it is for, so npm never fetches
 * it on another platform; where the registry does serve it, `npm install` writes the full entry.
 *
 * Each entry is written exactly as npm itself writes one (the parent's `dev`/`devOptional`/`peer`
 * flags carried over, fields in npm's order), so an `npm install` on a fresh clone finds nothing
 * to rewrite and leaves `git status` clean; entries written otherwise by an earlier run are
 * rewritten that way.
 *
 * Run after `npm install` changes the lockfile: `npx tsx scripts/completeLockfile.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

type LockEntry = { version?: string; optionalDependencies?: Record<string, string>; [field: string]: unknown };
type Lockfile = { packages: Record<string, LockEntry>; [field: string]: unknown };

const operatingSystems = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const cpus = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 's390x', 'loong64', 'riscv64'];

/** The platform a binary package is for, read from its name (`@swc/core-linux-arm-gnueabihf`). */
export function platformOf(packageName: string): { os: string; cpu: string; libc?: string } | undefined {
  const parts = packageName.split('/').pop()!.split('-');
  const os = parts.find((p) => operatingSystems.includes(p));
  const cpu = parts.find((p) => cpus.includes(p));
  if (!os || !cpu) return undefined;
  return os === 'linux' ? { os, cpu, libc: packageName.includes('musl') ? 'musl' : 'glibc' } : { os, cpu };
}

/**
 * A platform binary's entry as npm writes one it cannot fetch: the pinned version, then its
 * flags in npm's (alphabetical) order.
 */
export function binaryEntry(version: string, platform: { os: string; cpu: string; libc?: string }, parent: LockEntry): LockEntry {
  const entry: LockEntry = { version, cpu: [platform.cpu] };
  // Installed only for its parent: dev or peer exactly when the parent is.
  if (parent.dev === true) entry.dev = true;
  if (parent.devOptional === true) entry.devOptional = true;
  if (platform.libc) entry.libc = [platform.libc];
  entry.optional = true;
  entry.os = [platform.os];
  if (parent.peer === true) entry.peer = true;
  return entry;
}

/** An entry this script wrote (nothing fetched: no `resolved`, no `integrity`). */
const isStub = (entry: LockEntry | undefined) =>
  entry !== undefined && entry.resolved === undefined && entry.integrity === undefined && entry.optional === true;

/**
 * The lockfile with an entry for every optional platform binary its packages name, each as npm
 * writes it; the names added, and those whose earlier entry was rewritten.
 */
export function completeLockfile(lock: Lockfile): { lock: Lockfile; added: string[]; rewritten: string[] } {
  const packages: Record<string, LockEntry> = { ...lock.packages };
  const added: string[] = [];
  const rewritten: string[] = [];
  for (const [, parent] of Object.entries(lock.packages)) {
    for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
      const path = `node_modules/${name}`;
      const platform = platformOf(name);
      const existing = packages[path];
      if (!platform || (existing && !isStub(existing))) continue;
      const entry = binaryEntry(existing?.version ?? version, platform, parent);
      if (!existing) added.push(path);
      else if (JSON.stringify(existing) === JSON.stringify(entry)) continue;
      else rewritten.push(path);
      packages[path] = entry;
    }
  }
  const entries = Object.entries(packages);
  // npm orders entries by path; the root entry ('') stays first.
  entries.sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en')));
  return { lock: { ...lock, packages: Object.fromEntries(entries) }, added, rewritten };
}

if (require.main === module) {
  const file = resolve(__dirname, '..', 'package-lock.json');
  const { lock, added, rewritten } = completeLockfile(JSON.parse(readFileSync(file, 'utf8')) as Lockfile);
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  if (added.length) process.stdout.write(`added ${added.length} platform entries:\n${added.join('\n')}\n`);
  if (rewritten.length) process.stdout.write(`rewrote ${rewritten.length} platform entries as npm writes them:\n${rewritten.join('\n')}\n`);
  if (!added.length && !rewritten.length) process.stdout.write('lockfile already complete\n');
}
