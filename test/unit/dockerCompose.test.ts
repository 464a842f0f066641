import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '../../core/config';
import { SA } from '../../core/temporal/searchAttributes';

const root = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      environment?: Record<string, unknown>;
      command?: unknown;
      build?: unknown;
      image?: string;
      ports?: unknown[];
      configs?: Array<{ source: string; target: string }>;
      depends_on?: Record<string, { condition: string }>;
    }
  >;
  configs?: Record<string, { content?: string }>;
};

describe('docker-compose.yml (it cannot run here; its wiring is checked instead)', () => {
  test('runs MongoDB, Temporal with its UI, api and worker', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['mongodb', 'temporal', 'temporal-ui', 'api', 'worker']));
    expect(compose.services.api.build).toBe('.');
    expect(compose.services.worker.build).toBe('.');
    expect(String(compose.services.worker.command)).toMatch(/worker/);
  });

  test.each(['api', 'worker'])('%s is configured only through variables the config module reads', (name) => {
    const env = compose.services[name].environment ?? {};
    const names = Object.keys(env).filter((k) => k !== '<<');
    expect(names.length).toBeGreaterThan(5);
    for (const v of names) expect(CONFIG_VARIABLES).toContain(v);
    for (const required of ['MONGODB_URI', 'TEMPORAL_ADDRESS', 'SECRETS_ENCRYPTION_KEY']) expect(names).toContain(required);
    expect(String(env.TEMPORAL_ADDRESS)).toBe('temporal:7233');
    expect(String(env.MONGODB_URI)).toMatch(/^mongodb:\/\/mongodb:27017\//);
  });

  test('registers every custom search attribute the workflows use', () => {
    const text = JSON.stringify(compose.services['temporal-search-attributes']);
    for (const key of Object.values(SA)) expect(text).toContain(key.name);
  });

  test('Temporal allows the eager workflow start that webhook delivery asks for', () => {
    const temporal = compose.services.temporal;
    const file = String(temporal.environment?.DYNAMIC_CONFIG_FILE_PATH);
    const mounted = temporal.configs?.find((c) => c.target === file);
    expect(mounted).toBeDefined();
    const dynamic = parse(compose.configs?.[mounted!.source]?.content ?? '') as Record<string, Array<{ value: unknown }>>;
    expect(dynamic['system.enableEagerWorkflowStart']).toEqual([{ value: true }]);
  });

  test('Temporal frontend and UI ports are bound to 127.0.0.1 only (they have no authentication)', () => {
    for (const name of ['temporal', 'temporal-ui']) {
      const ports = (compose.services[name].ports ?? []).map(String);
      expect(ports.length).toBeGreaterThan(0);
      for (const p of ports) expect(p).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
    // Nothing else of Temporal's is published on every interface either.
    for (const [name, svc] of Object.entries(compose.services)) {
      if (name === 'api') continue;
      for (const p of (svc.ports ?? []).map(String)) expect(p).toMatch(/^127\.0\.0\.1:/);
    }
  });

  test('Temporal runs as Temporal documents it now: no auto-setup image; a schema job, the server image, a namespace job', () => {
    const images = Object.values(compose.services).map((svc) => svc.image ?? '');
    expect(images.some((i) => i.includes('auto-setup'))).toBe(false);
    const [server, schema, namespace] = ['temporal', 'temporal-schema', 'temporal-search-attributes'].map((n) => compose.services[n]);
    expect(server.image).toMatch(/^temporalio\/server:1\.(\d+)\.\d+$/);
    expect(Number(/^temporalio\/server:1\.(\d+)/.exec(server.image!)![1])).toBeGreaterThanOrEqual(29);
    // Tools and server of one release, so the schema matches the server.
    expect(schema.image!.split(':')[1]).toBe(server.image!.split(':')[1]);
    expect(namespace.image!.split(':')[1]).toBe(server.image!.split(':')[1]);
    expect(server.depends_on?.['temporal-schema']).toEqual({ condition: 'service_completed_successfully' });
    const schemaScript = JSON.stringify(schema.command);
    for (const db of ['temporal', 'temporal_visibility']) expect(schemaScript).toContain(db);
    expect(schemaScript).toContain('update-schema');
    expect(JSON.stringify(namespace.command)).toMatch(/namespace create -n default/);
    // The app starts only once the namespace and its search attributes exist.
    for (const app of ['api', 'worker'])
      expect(compose.services[app].depends_on?.['temporal-search-attributes']).toEqual({ condition: 'service_completed_successfully' });
  });

  test('MongoDB is a current major release (8 or later)', () => {
    expect(Number(/^mongo:(\d+)/.exec(compose.services.mongodb.image ?? '')?.[1])).toBeGreaterThanOrEqual(8);
  });
});

describe('runtime', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };

  test('every stage of the Dockerfile builds on the current Node LTS (24)', () => {
    const bases = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^node:24(-|$)/);
  });

  test("engines admits the Node 20 these machines run and the image's Node 24", () => {
    const floor = /^>=(\d+)(?:\.(\d+))?/.exec(pkg.engines.node);
    expect(floor).not.toBeNull();
    expect(Number(floor![1])).toBe(20);
    const [major, minor] = process.versions.node.split('.').map(Number);
    expect(major > Number(floor![1]) || (major === Number(floor![1]) && minor >= Number(floor![2] ?? 0))).toBe(true);
  });
});
