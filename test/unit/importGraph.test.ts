import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/**
 * One-way areas (ARCHITECTURE.md "Layers, one way"), read from the TypeScript import graph of the
 * whole tree. Type-only imports count: an area that needs another's type depends on it as much
 * as one that calls it, and a circle of types is the same knot a reader has to untie.
 */
const ROOT = join(__dirname, '..', '..');
const TREE = ['api', 'core', 'workflows', 'activities', 'worker', 'scripts', 'bench'];

/**
 * The layers of `core/`, lowest first; an area imports only areas of its own layer or below.
 * An area is a folder of `core/` or a file at its top. docs/architecture.md draws the same order.
 */
export const CORE_LAYERS: readonly { name: string; areas: readonly string[] }[] = [
  {
    name: 'foundations',
    areas: [
      'config',
      'problems',
      'ids',
      'concealed',
      'allowedOrigins',
      'apiFields',
      'pageCursor',
      'isoInstant',
      'csvExport',
      'crypto',
      'store',
      'observability',
      'faultInjection',
      'inTurn',
      'outbound',
      'temporal',
      'periodicPass',
    ],
  },
  { name: 'identity and money', areas: ['tenancy', 'keys', 'users', 'mailboxLimits', 'credits', 'idempotency', 'limits', 'audit', 'usage'] },
  { name: 'work', areas: ['talent', 'contactProvider', 'jobs', 'webhooks', 'oauth', 'mail', 'accounts'] },
  { name: 'starters', areas: ['starters', 'maintenance', 'deps'] },
];

/**
 * Pairs of areas still importing each other, and arrows still pointing up, each to be broken
 * (issue 43): an entry that no longer holds fails, so the list only shrinks.
 */
const NOT_YET_ONE_WAY = new Set<string>([]);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each source file of the tree with the tree's files it imports (relative specifiers resolved). */
export function importGraph(files: readonly string[], read: (file: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const resolve = (from: string, specifier: string): string | undefined => {
    if (!specifier.startsWith('.')) return undefined;
    const base = join(dirname(from), specifier).replace(/\.js$/, '');
    return [`${base}.ts`, `${base}/index.ts`].find((candidate) => known.has(candidate));
  };
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imported = ts.preProcessFile(read(file), true, false).importedFiles;
    graph.set(
      file,
      imported.flatMap((i) => resolve(file, i.fileName) ?? []),
    );
  }
  return graph;
}

/** The strongly connected parts with more than one member (Tarjan): each is an import circle. */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** `core/<folder>` or `core/<file without .ts>`; undefined outside `core/`. */
function coreArea(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'core') return undefined;
  return `core/${parts.length > 2 ? parts[1] : parts[1].replace(/\.ts$/, '')}`;
}

const files = TREE.flatMap(sourceFiles);
const graph = importGraph(files, (file) => readFileSync(join(ROOT, file), 'utf8'));

const areaEdges = new Map<string, Set<string>>();
for (const [from, targets] of graph) {
  const a = coreArea(from);
  if (!a) continue;
  for (const to of targets) {
    const b = coreArea(to);
    if (b && b !== a) areaEdges.set(a, (areaEdges.get(a) ?? new Set()).add(b));
  }
}
const layerOf = new Map<string, number>(CORE_LAYERS.flatMap((layer, n) => layer.areas.map((area) => [`core/${area}`, n] as const)));

describe('the import graph', () => {
  it('reads the tree', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get('api/app.ts')?.length).toBeGreaterThan(5);
  });

  it('has no import circle anywhere in the tree', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('places every area of core/ in a layer', () => {
    const unplaced = [...new Set(files.map(coreArea).filter((a): a is string => a !== undefined))].filter((a) => !layerOf.has(a));
    expect(unplaced).toEqual([]);
  });

  it('has no pair of core/ areas importing each other and no core/ area importing a higher layer', () => {
    const found = new Set<string>();
    for (const [a, targets] of areaEdges) {
      for (const b of targets) {
        if (a < b && areaEdges.get(b)?.has(a)) found.add(`${a} <-> ${b}`);
        if ((layerOf.get(b) ?? 0) > (layerOf.get(a) ?? 0)) found.add(`${a} -> ${b}`);
      }
    }
    expect([...found].filter((f) => !NOT_YET_ONE_WAY.has(f)).sort()).toEqual([]);
    expect([...NOT_YET_ONE_WAY].filter((f) => !found.has(f)).sort()).toEqual([]);
  });

  it('finds a circle and a back-arrow when there is one', () => {
    const knot = importGraph(['core/a.ts', 'core/b/c.ts', 'core/d.ts'], (file) =>
      file === 'core/a.ts' ? "import { c } from './b/c';" : file === 'core/b/c.ts' ? "import type { a } from '../a';" : 'export const d = 1;',
    );
    expect(circles(knot)).toEqual([['core/a.ts', 'core/b/c.ts']]);
    expect(
      circles(
        new Map([
          ['x.ts', ['y.ts']],
          ['y.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
