import { chainExpired, eventPurgeable, EVENT_QUIET_MS, EVENT_RETENTION_MS } from '../../core/maintenance/retentionRules';
import { endpointVerdict } from '../../core/webhooks/deliverAttempt';

const DAY = 24 * 3600_000;
const now = Date.UTC(2026, 10, 23);
const ago = (ms: number) => new Date(now - ms);

describe('retention of records without an expiry of their own', () => {
  test('an event goes 30 days after it was made, once quiet for the replay window plus a day', () => {
    expect(EVENT_RETENTION_MS).toBe(30 * DAY);
    expect(EVENT_QUIET_MS).toBe(8 * DAY);
    expect(eventPurgeable({ createdAt: ago(31 * DAY), updatedAt: ago(9 * DAY) }, now)).toBe(true);
    expect(eventPurgeable({ createdAt: ago(31 * DAY), updatedAt: ago(2 * DAY) }, now)).toBe(false);
    expect(eventPurgeable({ createdAt: ago(29 * DAY), updatedAt: ago(29 * DAY) }, now)).toBe(false);
  });

  test('a refresh-token chain goes only when every token of it has expired', () => {
    expect(chainExpired([{ expiresAt: ago(DAY) }, { expiresAt: ago(1) }], now)).toBe(true);
    expect(chainExpired([{ expiresAt: ago(DAY) }, { expiresAt: ago(-1) }], now)).toBe(false);
    expect(chainExpired([], now)).toBe(false);
  });
});

describe('the endpoint an attempt may use', () => {
  const event = { orgId: 'org_a', workspaceId: 'ws_a' };
  test("active and of the event's workspace: ok; disabled, retired or gone: endpoint_inactive; another workspace: endpoint_mismatch", () => {
    expect(endpointVerdict({ orgId: 'org_a', workspaceId: 'ws_a', state: 'active' }, event)).toBe('ok');
    expect(endpointVerdict({ orgId: 'org_a', workspaceId: 'ws_a', state: 'disabled' }, event)).toBe('endpoint_inactive');
    expect(endpointVerdict(null, event)).toBe('endpoint_inactive');
    expect(endpointVerdict({ orgId: 'org_b', workspaceId: 'ws_b', state: 'active' }, event)).toBe('endpoint_mismatch');
    expect(endpointVerdict({ orgId: 'org_a', workspaceId: 'ws_other', state: 'disabled' }, event)).toBe('endpoint_mismatch');
  });
});
