import { CONSOLE_OPERATIONS } from '../../api/console/consoleOperationNames';
import { consoleOperations } from '../../api/console/consoleOperations';
import { safeReturnPath } from '../../api/console/returnPath';
import { needsSudo } from '../../api/console/sudoOperations';
import { publicOpenApi } from '../../api/reference/publicDocument';
import { v1Routes } from '../../api/routes/index';
import { KEY_EXPIRY_CHOICES, OLD_KEY_END_CHOICES, expiryOf, oldKeyEndMs } from '../../core/keys/keyLifetimes';
import { OPERATIONS } from '../../core/limits/limitTable';
import { permissionsBeyond } from '../../core/keys/permissions';
import { SUDO_WINDOW_MS, sudoActive } from '../../core/users/sudoMode';

describe('sudo mode: a password typed within the last 15 minutes covers a sensitive change', () => {
  const confirmed = new Date('2026-01-01T12:00:00Z');
  const after = (ms: number) => new Date(confirmed.getTime() + ms);

  test('inside the window it holds', () => {
    expect(sudoActive(confirmed, confirmed)).toBe(true);
    expect(sudoActive(confirmed, after(14 * 60_000 + 59_999))).toBe(true);
  });

  test('from 15 minutes on it no longer does', () => {
    expect(SUDO_WINDOW_MS).toBe(15 * 60_000);
    expect(sudoActive(confirmed, after(15 * 60_000))).toBe(false);
    expect(sudoActive(confirmed, after(16 * 60_000))).toBe(false);
  });

  test('never confirmed, or confirmed "in the future" (a clock step), does not count', () => {
    expect(sudoActive(null, confirmed)).toBe(false);
    expect(sudoActive(undefined, confirmed)).toBe(false);
    expect(sudoActive(after(60_000), confirmed)).toBe(false);
  });
});

describe('which console writes need sudo mode: those that hand out a lasting access', () => {
  test('creating, rotating, inviting, editing a person, registering an endpoint, rotating its secret always do', () => {
    for (const op of ['console.keys.create', 'console.keys.rotate', 'console.team.invite', 'console.team.update', 'console.webhooks.register'] as const) {
      expect(needsSudo(op, {})).toBe(true);
      expect(needsSudo(op)).toBe(true);
    }
    expect(needsSudo('console.webhooks.rotate_secret', {})).toBe(true);
  });

  test('an endpoint update does when it re-points the endpoint, not when it disables or enables it', () => {
    expect(needsSudo('console.webhooks.update', { url: 'https://example.com/hooks' })).toBe(true);
    expect(needsSudo('console.webhooks.update', { state: 'disabled' })).toBe(false);
    expect(needsSudo('console.webhooks.update')).toBe(false);
  });

  test('taking access away does not', () => {
    for (const op of ['console.keys.revoke', 'console.team.disable', 'console.webhooks.retire', 'console.webhooks.replay', 'console.jobs.cancel'] as const) {
      expect(needsSudo(op, {})).toBe(false);
    }
  });
});

describe('safe return path: only a path of the console itself', () => {
  test.each(['/console', '/console/keys', '/console/keys/new', '/console/team/usr_1?x=1', '/console/audit?action=key.created&cursor=abc'])(
    '%s is kept',
    (p) => {
      expect(safeReturnPath(p)).toBe(p);
    },
  );

  test.each([
    'https://evil.example/console/keys',
    '//evil.example/console/keys',
    '/\\evil.example/console',
    '/console\\..\\api',
    '/\t/evil.example',
    '/console/../api/oauth/token',
    '/console/%2e%2e/api/oauth/token',
    '/consolex',
    '/api/oauth/connections',
    'console/keys',
    'javascript:alert(1)',
    '',
  ])('%s is refused', (p) => {
    expect(safeReturnPath(p)).toBeNull();
  });

  test('a path longer than 512 characters is refused', () => {
    expect(safeReturnPath('/console/' + 'a'.repeat(600))).toBeNull();
  });

  test('anything but a string is refused', () => {
    expect(safeReturnPath(undefined)).toBeNull();
    expect(safeReturnPath(['/console/keys'])).toBeNull();
  });
});

describe("permissions never beyond the giver's own", () => {
  test('within: nothing beyond', () => {
    expect(permissionsBeyond(['candidates.search'], ['candidates.search', 'jobs.v1:read'])).toEqual([]);
    expect(permissionsBeyond([], ['candidates.search'])).toEqual([]);
  });

  test('beyond: each extra permission once', () => {
    expect(permissionsBeyond(['candidates.search', 'webhooks.v1:manage', 'webhooks.v1:manage'], ['candidates.search'])).toEqual(['webhooks.v1:manage']);
  });
});

describe('key lifetimes offered by the console', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  test('"Never" gives no expiry; the others count from now', () => {
    expect(expiryOf('never', now)).toBeNull();
    expect(expiryOf('30d', now)?.toISOString()).toBe('2026-01-31T00:00:00.000Z');
    expect(expiryOf('90d', now)?.toISOString()).toBe('2026-04-01T00:00:00.000Z');
    expect(expiryOf('1y', now)?.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  test('the old key of a rotation ends now, in 1 hour, 24 hours or 7 days', () => {
    expect(OLD_KEY_END_CHOICES.map((c) => c.label)).toEqual(['Now', 'In 1 hour', 'In 24 hours', 'In 7 days']);
    expect(['now', '1h', '24h', '7d'].map((c) => oldKeyEndMs(c as never))).toEqual([0, 3600_000, 86_400_000, 604_800_000]);
    expect(KEY_EXPIRY_CHOICES.map((c) => c.label)).toEqual(['Never', 'In 30 days', 'In 90 days', 'In 1 year']);
  });
});

describe('console operations are their own road: executor operations, never developer-API ones', () => {
  test('each console operation is declared once, under a name of the console list', () => {
    expect(consoleOperations.map((o) => o.operation).sort()).toEqual([...CONSOLE_OPERATIONS].sort());
  });

  test('no console operation is a /v1 route, a limit-table operation or in the OpenAPI document', () => {
    const names = new Set<string>(CONSOLE_OPERATIONS);
    expect(v1Routes.filter((r) => names.has(r.operation))).toEqual([]);
    expect(OPERATIONS.filter((o) => names.has(o))).toEqual([]);
    const document = publicOpenApi({
      baseUrl: 'http://127.0.0.1:1',
      authUrl: 'http://127.0.0.1:1',
      mcpUrl: 'http://127.0.0.1:1',
      metricsEnabled: false,
      metricsToken: null,
    } as never);
    expect(JSON.stringify(document)).not.toMatch(/console\.(keys|team)/);
  });
});
