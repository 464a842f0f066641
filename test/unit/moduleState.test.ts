import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * No module-level mutable state in `core/`, `api/` or `activities/`, read from the sources: a
 * top-level `let`/`var`, or a top-level constant built with `new` (a cache, a map, a pool), is
 * state every app in the process shares, so two apps with different settings could not live
 * side by side. State belongs to an object the process's composition root builds and passes
 * down. Each remaining declaration is named below with why it may stay; a converted one must
 * leave the list (a stale entry fails).
 */
const ROOT = join(__dirname, '..', '..');
const CHECKED = ['core', 'api', 'activities'];

/** Constructors whose instances never change after the module is loaded. */
const IMMUTABLE_CONSTRUCTORS = new Set(['Schema', 'RegExp', 'URL', 'TextEncoder', 'TextDecoder']);
/** Lookup tables: allowed when named as a constant and never changed in their file. */
const TABLE_CONSTRUCTORS = new Set(['Set', 'Map']);

/** Process-wide by nature, each with why. */
const JUSTIFIED: Record<string, string> = {
  'core/observability/metrics.ts:metricsRegistry': 'Prometheus scrapes a process, so its counters are per process by definition',
  'core/observability/metrics.ts:httpRequests': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:httpDuration': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:admissionRefusals': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:creditsCharged': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:jobsStarted': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:jobsFinished': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:webhookAttempts': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:webhookAttemptDuration': 'a per-process metric (see metricsRegistry)',
  'core/observability/metrics.ts:webhookDeadLetters': 'a per-process metric (see metricsRegistry)',
  'api/mcp/toolPaths.ts:spellings': 'a router with one route, built from constants and only matched against, never changed',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const MUTATORS = /\.(add|set|delete|clear)\(/;

/** The top-level declarations of one source that hold state, as `file:name`. */
export function moduleStateOf(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const statement of sf.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const isConst = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
    for (const d of statement.declarationList.declarations) {
      const name = d.name.getText(sf);
      if (!isConst) {
        found.push(`${file}:${name}`);
        continue;
      }
      const init = d.initializer;
      if (!init || !ts.isNewExpression(init)) continue;
      const constructor = init.expression.getText(sf);
      if (IMMUTABLE_CONSTRUCTORS.has(constructor)) continue;
      const isTable = TABLE_CONSTRUCTORS.has(constructor) && /^[A-Z][A-Z0-9_]*$/.test(name);
      const changed = source.split('\n').some((line) => line.includes(`${name}.`) && MUTATORS.test(line.slice(line.indexOf(`${name}.`))));
      if (isTable && !changed) continue;
      found.push(`${file}:${name}`);
    }
  }
  return found;
}

const found = CHECKED.flatMap(sourceFiles).flatMap((f) => moduleStateOf(f, readFileSync(join(ROOT, f), 'utf8')));

test('module-level state is only what is named here', () => {
  const named = new Set(Object.keys(JUSTIFIED));
  expect(found.filter((s) => !named.has(s))).toEqual([]);
});

test('every named declaration still exists (a converted one leaves the list)', () => {
  const present = new Set(found);
  expect(Object.keys(JUSTIFIED).filter((s) => !present.has(s))).toEqual([]);
});

/** Whether a source registers a model on the default connection (`model()` imported from mongoose, `mongoose.model()`). */
export function registersDefaultModel(source: string): boolean {
  const importsModel = /import\s*\{[^}]*\bmodel\b[^}]*\}\s*from\s*'mongoose'/.test(source);
  if (importsModel && /(^|[^.\w])model\s*(<[^>]*>)?\s*\(/m.test(source)) return true;
  return /\bmongoose\s*\.\s*(connection\s*\.\s*)?model\s*(<[^>]*>)?\s*\(/.test(source);
}

const SOURCES = ['core', 'api', 'activities', 'workflows', 'worker', 'scripts', 'bench'];
const onDefault = SOURCES.flatMap(sourceFiles).filter((f) => registersDefaultModel(readFileSync(join(ROOT, f), 'utf8')));

/**
 * No model on mongoose's default connection: each composition root opens its own
 * (core/store/connection.ts `openStore`) and the areas' stores bind their models to it
 * (core/deps.ts `createStores`), so two apps in one process can use two databases.
 */
test('no model on the default connection', () => {
  expect(onDefault).toEqual([]);
});

test('the default-connection reader finds each way of registering and lets bound models be', () => {
  expect(registersDefaultModel("import { Schema, model } from 'mongoose';\nexport const A = model('A', s);")).toBe(true);
  expect(registersDefaultModel("import mongoose from 'mongoose';\nconst A = mongoose.model<X>('A', s);")).toBe(true);
  expect(registersDefaultModel("import mongoose from 'mongoose';\nconst A = mongoose.connection.model('A', s);")).toBe(true);
  expect(registersDefaultModel("import { Schema } from 'mongoose';\nconst A = boundModel<X>(connection, 'A', s, 'a');")).toBe(false);
  expect(registersDefaultModel("import type { Connection } from 'mongoose';\nconst A = connection.model('A', s);")).toBe(false);
});

test('the reader finds what it must and lets constant tables be', () => {
  const source = [
    'let armed = false;',
    'const cache = new Map<string, number>();',
    "const LIMITS = new Set(['a']);",
    'const GROWING = new Set<string>();',
    "GROWING.add('x');",
    'const schema = new Schema({});',
    'export function f() { let local = 1; return local; }',
  ].join('\n');
  expect(moduleStateOf('x.ts', source)).toEqual(['x.ts:armed', 'x.ts:cache', 'x.ts:GROWING']);
});

/**
 * The process-wide logger (`logger` of core/observability/logger.ts) is a root's to import: a
 * root builds its own with `createLogger` and hands it down (Deps.logger, a request's or an
 * activity's child of it), so what a test's app logs is that test's.
 */
const LOGGER_ROOTS = new Set(['scripts/chaos/main.ts']);
const LOGGER_CHECKED = ['core', 'api', 'activities', 'worker', 'workflows', 'scripts'];

/** Whether a source imports the process-wide logger (not the factory or the type). */
export function importsProcessLogger(file: string, source: string): boolean {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  return sf.statements.some((s) => {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier) || !s.moduleSpecifier.text.endsWith('observability/logger')) return false;
    const bindings = s.importClause?.namedBindings;
    if (s.importClause?.isTypeOnly || !bindings) return false;
    if (ts.isNamespaceImport(bindings)) return true;
    return bindings.elements.some((e) => !e.isTypeOnly && (e.propertyName ?? e.name).text === 'logger');
  });
}

const processLoggerImports = LOGGER_CHECKED.flatMap(sourceFiles).filter((f) => importsProcessLogger(f, readFileSync(join(ROOT, f), 'utf8')));

test('only roots import the process-wide logger', () => {
  expect(processLoggerImports.filter((f) => !LOGGER_ROOTS.has(f))).toEqual([]);
});

test('the logger reader tells the process-wide logger from the factory and the type', () => {
  expect(importsProcessLogger('a.ts', "import { logger } from '../observability/logger';")).toBe(true);
  expect(importsProcessLogger('a.ts', "import { createLogger, logger as log } from '../core/observability/logger';")).toBe(true);
  expect(importsProcessLogger('a.ts', "import { createLogger, type Logger } from '../observability/logger';")).toBe(false);
  expect(importsProcessLogger('a.ts', "import type { Logger } from './observability/logger';")).toBe(false);
});

/**
 * `core/` reads the time only from the clock its root injects (Deps.now, a `now` argument): no
 * `Date.now()` and no argument-less `new Date()`, which also rules out `now = new Date()`
 * defaults, so a test moves time instead of waiting for it. WALL_CLOCK_BY_NATURE names the
 * reads that must be real time, each with why.
 */
const WALL_CLOCK_BY_NATURE: Record<string, string> = {
  'core/temporal/client.ts': 'a call deadline to a Temporal server counts real milliseconds, whatever clock the app runs on',
  'core/temporal/deadline.ts': 'the gRPC deadline handed to the Temporal connection is an instant of real time',
  'core/store/connection.ts': 'start-up waits for a store process to answer: its deadline counts real milliseconds, whatever clock the app runs on',
};

/** The direct clock reads in one source: `Date.now()` calls and argument-less `new Date()`. */
export function clockReadsOf(file: string, source: string): number {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  let reads = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.getText(sf) === 'Date.now') reads++;
    if (ts.isNewExpression(node) && node.expression.getText(sf) === 'Date' && (node.arguments?.length ?? 0) === 0) reads++;
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return reads;
}

const readingTheClock = sourceFiles('core').filter((f) => clockReadsOf(f, readFileSync(join(ROOT, f), 'utf8')) > 0);

test('core/ reads the time only from the injected clock', () => {
  expect(readingTheClock.filter((f) => !(f in WALL_CLOCK_BY_NATURE))).toEqual([]);
});

test('every read named as wall-clock by nature is still there (a converted one leaves the list)', () => {
  expect(Object.keys(WALL_CLOCK_BY_NATURE).filter((f) => !readingTheClock.includes(f))).toEqual([]);
});

test('the clock reader finds calls, argument-less dates and defaults, not dates made from a value', () => {
  const source = [
    'const a = Date.now();',
    'function f(now = new Date()) { return now; }',
    'const b = new Date(a);',
    'const c = new Date(Date.parse("2026-01-01"));',
    'const clock = Date.now;',
  ].join('\n');
  expect(clockReadsOf('x.ts', source)).toBe(2);
});
