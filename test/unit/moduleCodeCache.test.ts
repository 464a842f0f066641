import type * as NodeVm from 'node:vm';

/**
 * The tests' environment gives each jest worker V8's code cache for the modules it compiles
 * (test/support/moduleCodeCache.ts): a source compiled again takes the code cache of its first
 * compilation, and anything else is compiled from its own source.
 */
const vm: typeof NodeVm = require('node:vm');
const filename = '/virtual/moduleCodeCache/sum.js';

test('the tests environment compiles modules through the code cache', () => {
  expect(vm.compileFunction.name).toBe('compileWithCodeCache');
});

test('the same source compiled again takes the first compilation’s code cache and behaves the same', () => {
  const source = 'return a + b * 2;';
  const first = vm.compileFunction(source, ['a', 'b'], { filename });
  const again = vm.compileFunction(source, ['a', 'b'], { filename });
  expect(first.cachedDataRejected).toBeUndefined();
  expect(again.cachedDataRejected).toBe(false);
  expect([first(1, 2), again(1, 2)]).toEqual([5, 5]);
});

test('a changed source or other parameters under the same file name are compiled from their own source', () => {
  vm.compileFunction('return a + b;', ['a', 'b'], { filename: `${filename}.2` });
  const changed = vm.compileFunction('return a - b;', ['a', 'b'], { filename: `${filename}.2` });
  expect(changed.cachedDataRejected).toBeUndefined();
  expect(changed(5, 2)).toBe(3);
  const otherParameters = vm.compileFunction('return a - b;', ['b', 'a'], { filename: `${filename}.2` });
  expect(otherParameters.cachedDataRejected).toBeUndefined();
  expect(otherParameters(5, 2)).toBe(-3);
});
