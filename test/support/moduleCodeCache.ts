/**
 * V8's code cache for the modules a jest worker compiles. Jest gives every test file a module
 * registry of its own, so each file compiles the app's modules, mongoose, the mongodb driver and
 * the Temporal SDK again from their source through `vm.compileFunction`. The worker keeps the
 * code cache of each module it compiled and hands it to the next compilation of the same source,
 * which then deserializes instead of parsing. Loaded by the tests' environment
 * (logBufferEnvironment.ts), in the worker's own context, before any test file.
 *
 * A cache entry is used only for the same file, the same parameters and the very same source, and
 * V8 refuses one that does not fit its build or flags (the module is then compiled as usual).
 */
import type { CompileFunctionOptions } from 'node:vm';

// `require`, not `import * as`: a namespace copy would take the replacement, not the module jest calls.
const vm: typeof import('node:vm') = require('node:vm');

type CompiledFunction = ReturnType<typeof vm.compileFunction>;

const compileFunction = vm.compileFunction;
const codeCache = new Map<string, { source: string; data: Buffer }>();

function compileWithCodeCache(code: string, params?: readonly string[], options?: CompileFunctionOptions): CompiledFunction {
  if (!options?.filename || options.cachedData || options.produceCachedData) return compileFunction(code, params, options);
  const key = `${options.filename}\0${(params ?? []).join(',')}`;
  const cached = codeCache.get(key);
  if (cached?.source === code) {
    const fn: CompiledFunction = compileFunction(code, params, { ...options, cachedData: cached.data });
    if (!fn.cachedDataRejected) return fn;
  }
  const fn: CompiledFunction = compileFunction(code, params, { ...options, produceCachedData: true });
  if (fn.cachedData) codeCache.set(key, { source: code, data: fn.cachedData });
  return fn;
}

// Once per process, should a second module registry load this file: a replacement around the
// replacement would only look every module up twice.
if (vm.compileFunction.name !== compileWithCodeCache.name) vm.compileFunction = compileWithCodeCache;
