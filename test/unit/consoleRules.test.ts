import { safeReturnPath } from '../../api/console/returnPath';
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
