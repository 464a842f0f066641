import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The store port rule, read from the sources: an area's mongoose models are imported only by
 * its store module, so domain functions, routes, the CLI, scripts and benchmarks reach the
 * store through it. Tests are not checked (they may set the store up through the models).
 */
const ROOT = join(__dirname, '..', '..');
const CHECKED = ['api', 'core', 'activities', 'workflows', 'worker', 'scripts', 'bench'];

interface Port {
  /** Modules that declare the area's mongoose models (without extension, from the root). */
  models: string[];
  /** The modules allowed to import them: the store and the model modules themselves. */
  allowed: string[];
  /** The area's folder: inside it only `allowed` and `exceptions` may reach mongoose or the driver. */
  area: string;
  /** Files that may still touch mongoose themselves, each with why. */
  exceptions: Record<string, string>;
}

const PORTS: Port[] = [
  {
    area: 'core/talent',
    models: ['core/talent/models', 'core/talent/searchModels'],
    allowed: ['core/talent/store', 'core/talent/models', 'core/talent/searchModels'],
    exceptions: {},
  },
  {
    area: 'core/oauth',
    models: ['core/oauth/models'],
    allowed: ['core/oauth/store', 'core/oauth/models'],
    exceptions: {},
  },
  {
    area: 'core/webhooks',
    models: ['core/webhooks/models'],
    allowed: [
      'core/webhooks/models',
      'core/webhooks/store/endpointStore',
      'core/webhooks/store/eventStore',
      'core/webhooks/store/deliveryStore',
      'core/webhooks/store/replaySlotStore',
      'core/webhooks/store/webhookStore',
    ],
    exceptions: {},
  },
  {
    area: 'core/keys',
    models: ['core/keys/models'],
    allowed: ['core/keys/store', 'core/keys/models'],
    exceptions: {},
  },
  {
    area: 'core/audit',
    models: ['core/audit/models'],
    allowed: ['core/audit/store', 'core/audit/models'],
    exceptions: {},
  },
  {
    area: 'core/users',
    models: ['core/users/models'],
    allowed: ['core/users/store', 'core/users/models', 'core/users/passkeysStore'],
    exceptions: {},
  },
  {
    area: 'core/mail',
    models: ['core/mail/models'],
    allowed: ['core/mail/store', 'core/mail/models'],
    exceptions: {},
  },
  {
    area: 'core/usage',
    models: ['core/usage/models'],
    allowed: ['core/usage/store', 'core/usage/models'],
    exceptions: {},
  },
  {
    area: 'core/idempotency',
    models: ['core/idempotency/models'],
    allowed: ['core/idempotency/store', 'core/idempotency/models'],
    exceptions: {},
  },
  {
    area: 'core/tenancy',
    models: ['core/tenancy/models'],
    allowed: ['core/tenancy/store', 'core/tenancy/models'],
    exceptions: {},
  },
  {
    area: 'core/credits',
    models: ['core/credits/models'],
    allowed: ['core/credits/store', 'core/credits/models'],
    exceptions: {
      'core/credits/chain': 'the append-only chain over any model (ledger, quota windows, job tallies): the stores of those areas hand it their models',
    },
  },
  {
    area: 'core/limits',
    models: ['core/limits/models'],
    allowed: ['core/limits/store', 'core/limits/models'],
    exceptions: {},
  },
  {
    area: 'core/jobs',
    models: ['core/jobs/models'],
    allowed: ['core/jobs/store', 'core/jobs/models'],
    exceptions: {},
  },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module a file imports (static, dynamic, re-exports), as written. */
function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)'([^']+)'/g)) found.push(m[1]);
  return found;
}

/** A relative specifier as a path from the root without extension; packages as written. */
function resolved(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.(ts|js)$/, '');
}

const files = CHECKED.flatMap(sourceFiles);
const moduleOf = (file: string) => file.replace(/\.tsx?$/, '');

describe.each(PORTS)('the store port of $area', (port) => {
  test('only its store imports its models', () => {
    const offenders = files
      .filter((f) => !port.allowed.includes(moduleOf(f)))
      .flatMap((f) => {
        const source = readFileSync(join(ROOT, f), 'utf8');
        return importsOf(source)
          .map((spec) => resolved(f, spec))
          .filter((m) => port.models.includes(m))
          .map((m) => `${f} imports ${m}`);
      });
    expect(offenders).toEqual([]);
  });

  test('inside the area, only the store (and named exceptions) reach mongoose or the driver', () => {
    const offenders = files
      .filter((f) => f.startsWith(`${port.area}/`))
      .filter((f) => !port.allowed.includes(moduleOf(f)) && !(moduleOf(f) in port.exceptions))
      .flatMap((f) =>
        importsOf(readFileSync(join(ROOT, f), 'utf8'))
          .map((spec) => resolved(f, spec))
          .filter((m) => m === 'mongoose' || m === 'mongodb' || m === 'core/store/typedCollection' || m === 'core/store/inserts')
          .map((m) => `${f} imports ${m}`),
      );
    expect(offenders).toEqual([]);
  });

  test('the named exceptions exist (a stale one is removed from the list)', () => {
    for (const file of Object.keys(port.exceptions)) expect(files).toContainEqual(expect.stringMatching(new RegExp(`^${file}\\.tsx?$`)));
  });
});

/**
 * Typed stores: each store's collections are typed once (the records with their real `_id`
 * type), so `core/` needs no `as never` or `as unknown as`. The one place mongoose's types and
 * the driver's meet is the documented adapter; the files listed after it still hold a cast to
 * remove, and the list only shrinks.
 */
const CASTS_ALLOWED: Record<string, string> = {
  'core/store/typedCollection.ts': 'the one documented adapter between a model and its typed driver collection',
};

test("core/ casts only in the store's documented adapter", () => {
  const casting = files.filter((f) => f.startsWith('core/')).filter((f) => /\bas\s+never\b|\bas\s+unknown\s+as\b/.test(readFileSync(join(ROOT, f), 'utf8')));
  expect(casting.sort()).toEqual(Object.keys(CASTS_ALLOWED).sort());
});

describe('indexSet', () => {
  require('./indexSet.cases');
});
