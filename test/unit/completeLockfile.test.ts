import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { completeLockfile, platformOf } from '../../scripts/completeLockfile';

describe('completeLockfile (npm ci needs every optional platform binary in the lockfile)', () => {
  it('reads the platform from a binary package name', () => {
    expect(platformOf('@swc/core-darwin-arm64')).toEqual({ os: 'darwin', cpu: 'arm64' });
    expect(platformOf('@unrs/resolver-binding-linux-arm-musleabihf')).toEqual({ os: 'linux', cpu: 'arm', libc: 'musl' });
    expect(platformOf('@swc/core-linux-x64-gnu')).toEqual({ os: 'linux', cpu: 'x64', libc: 'glibc' });
    expect(platformOf('koa')).toBeUndefined();
  });

  it('adds a pinned, platform-bound entry for a missing binary and keeps npm order', () => {
    const lock = {
      lockfileVersion: 3,
      packages: {
        '': { name: 'x' },
        'node_modules/@swc/core': { version: '1.2.3', optionalDependencies: { '@swc/core-darwin-arm64': '1.2.3', '@swc/core-linux-x64-gnu': '1.2.3' } },
        'node_modules/@swc/core-linux-x64-gnu': { version: '1.2.3', integrity: 'sha512-x' },
        'node_modules/zod': { version: '4.0.0' },
      },
    };
    const { lock: done, added } = completeLockfile(lock);
    expect(added).toEqual(['node_modules/@swc/core-darwin-arm64']);
    expect(done.packages['node_modules/@swc/core-darwin-arm64']).toEqual({ version: '1.2.3', cpu: ['arm64'], optional: true, os: ['darwin'] });
    // Fields in npm's order, or npm install rewrites the lockfile.
    expect(Object.keys(done.packages['node_modules/@swc/core-darwin-arm64'])).toEqual(['version', 'cpu', 'optional', 'os']);
    expect(Object.keys(done.packages)).toEqual([
      '',
      'node_modules/@swc/core',
      'node_modules/@swc/core-darwin-arm64',
      'node_modules/@swc/core-linux-x64-gnu',
      'node_modules/zod',
    ]);
    expect(completeLockfile(done).added).toEqual([]);
  });

  it("writes an entry as npm does: the parent's dev flag, libc before optional and os; an earlier entry written otherwise is rewritten", () => {
    const lock = {
      lockfileVersion: 3,
      packages: {
        '': { name: 'x' },
        'node_modules/unrs-resolver': {
          version: '1.0.0',
          dev: true,
          optionalDependencies: { '@unrs/resolver-binding-linux-arm-musleabihf': '1.0.0', '@unrs/resolver-binding-darwin-x64': '1.0.0' },
        },
        // As an earlier version of this script wrote it: no dev flag, libc last.
        'node_modules/@unrs/resolver-binding-linux-arm-musleabihf': { version: '1.0.0', cpu: ['arm'], optional: true, os: ['linux'], libc: ['musl'] },
      },
    };
    const { lock: done, added, rewritten } = completeLockfile(lock);
    expect({ added, rewritten }).toEqual({
      added: ['node_modules/@unrs/resolver-binding-darwin-x64'],
      rewritten: ['node_modules/@unrs/resolver-binding-linux-arm-musleabihf'],
    });
    const musl = done.packages['node_modules/@unrs/resolver-binding-linux-arm-musleabihf'];
    expect(JSON.stringify(musl)).toBe('{"version":"1.0.0","cpu":["arm"],"dev":true,"libc":["musl"],"optional":true,"os":["linux"]}');
    expect(JSON.stringify(done.packages['node_modules/@unrs/resolver-binding-darwin-x64'])).toBe(
      '{"version":"1.0.0","cpu":["x64"],"dev":true,"optional":true,"os":["darwin"]}',
    );
    // An entry npm fetched (resolved, integrity) is npm's: left alone.
    const fetched = { version: '1.0.0', resolved: 'https://registry.example/x.tgz', integrity: 'sha512-x', cpu: ['x64'], optional: true, os: ['darwin'] };
    const withFetched = { ...lock, packages: { ...lock.packages, 'node_modules/@unrs/resolver-binding-darwin-x64': fetched } };
    expect(completeLockfile(withFetched).lock.packages['node_modules/@unrs/resolver-binding-darwin-x64']).toBe(fetched);
  });

  it('the committed lockfile is complete and written as npm writes it (run scripts/completeLockfile.ts after npm install)', () => {
    const lock = JSON.parse(readFileSync(resolve(__dirname, '../../package-lock.json'), 'utf8'));
    const { added, rewritten } = completeLockfile(lock);
    expect({ added, rewritten }).toEqual({ added: [], rewritten: [] });
  });
});
