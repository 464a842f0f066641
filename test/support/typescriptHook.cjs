// Loaded with `node --require` by the processes the tests start from TypeScript sources (the
// operator CLI, API replicas, workers, `npm run dev` in its test): it compiles each .ts file with
// swc as jest does, in the file's own place (so `__dirname` is what it is under tsx). tsx's
// loader costs about half a second of CPU more per process, and the tests start well over a
// hundred of them. Each file's output is kept on disk under a digest of its source, so only the
// first process to load a file after it changed compiles it.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
// swc itself (a native module) loads only when a file is not in the cache yet.
const { version } = require('@swc/core/package.json');

const options = { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } };
const CACHE = join(tmpdir(), `talent-typescript-hook-${process.getuid?.() ?? 'user'}`);
const settings = JSON.stringify({ version, options });

function compiled(filename, source) {
  const file = join(CACHE, `${createHash('sha256').update(settings).update(filename).update('\0').update(source).digest('hex')}.js`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // not compiled yet
  }
  const { code } = require('@swc/core').transformSync(source, { ...options, filename });
  try {
    mkdirSync(CACHE, { recursive: true });
    // Written whole, then renamed: a process reading it at the same time never sees half a file.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  } catch {
    // a cache that cannot be written only costs the next process a compilation
  }
  return code;
}

Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  module._compile(compiled(filename, readFileSync(filename, 'utf8')), filename);
};
