/**
 * Adds the lockfile entries of other platforms' optional binaries that `npm install` leaves out
 * when the registry it reaches does not serve them (this machine kind's mirror answers 404 for
 * `@swc/core-darwin-arm64` and the like). Without them `npm ci` refuses the lockfile as out of sync.
 * Each entry carries the version its parent pins and the platform it is for, so npm never fetches
 * it on another platform; where the registry does serve it, `npm install` writes the full entry.
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

/** The lockfile with an entry for every optional platform binary its packages name; the names added. */
export function completeLockfile(lock: Lockfile): { lock: Lockfile; added: string[] } {
  const entries = Object.entries(lock.packages);
  const added: string[] = [];
  for (const [, entry] of entries) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const path = `node_modules/${name}`;
      const platform = platformOf(name);
      if (lock.packages[path] || entries.some(([p]) => p === path) || !platform || added.includes(path)) continue;
      const { os, cpu, libc } = platform;
      entries.push([path, { version, cpu: [cpu], optional: true, os: [os], ...(libc ? { libc: [libc] } : {}) }]);
      added.push(path);
    }
  }
  // npm orders entries by path; the root entry ('') stays first.
  entries.sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en')));
  return { lock: { ...lock, packages: Object.fromEntries(entries) }, added };
}

if (require.main === module) {
  const file = resolve(__dirname, '..', 'package-lock.json');
  const { lock, added } = completeLockfile(JSON.parse(readFileSync(file, 'utf8')) as Lockfile);
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(added.length ? `added ${added.length} platform entries:\n${added.join('\n')}\n` : 'lockfile already complete\n');
}
