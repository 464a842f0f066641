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
    expect(Object.keys(done.packages)).toEqual([
      '',
      'node_modules/@swc/core',
      'node_modules/@swc/core-darwin-arm64',
      'node_modules/@swc/core-linux-x64-gnu',
      'node_modules/zod',
    ]);
    expect(completeLockfile(done).added).toEqual([]);
  });

  it('the committed lockfile is complete (run scripts/completeLockfile.ts after npm install)', () => {
    const lock = JSON.parse(readFileSync(resolve(__dirname, '../../package-lock.json'), 'utf8'));
    expect(completeLockfile(lock).added).toEqual([]);
  });
});
