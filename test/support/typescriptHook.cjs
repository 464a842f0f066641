// Loaded with `node --require` by the processes the tests start from TypeScript sources (the
// operator CLI, API replicas, workers): it compiles each .ts file with swc as jest does, in the
// file's own place (so `__dirname` is what it is under tsx). tsx's loader costs about half a
// second of CPU more per process, and the tests start well over a hundred of them.
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const options = { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } };

Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), { ...options, filename });
  module._compile(code, filename);
};
