import { AUDIT_ACTIONS, AUDIT_FIELDS, SECRET_FIELD_PATTERN, auditValues, isAuditActor } from '../../core/audit/auditActions';

describe('audit entry values', () => {
  test('no action lets a field named like a secret into an entry', () => {
    for (const action of AUDIT_ACTIONS) {
      for (const field of AUDIT_FIELDS[action]) expect(field).not.toMatch(SECRET_FIELD_PATTERN);
    }
  });

  test.each(AUDIT_ACTIONS)('%s: a key plaintext, its hash, a signing secret or a client secret cannot pass through', (action) => {
    const handed = {
      key: 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789',
      api_key: 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789',
      secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0',
      signing_secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0',
      client_secret: 'cs_secret',
      keyHash: 'f'.repeat(64),
      hash: 'f'.repeat(64),
      secretHash: 'f'.repeat(64),
      passwordHash: 'scrypt$…',
      setup_url: 'https://auth.example/api/oauth/setup?token=ust_x',
      token: 'ust_x',
    };
    expect(auditValues(action, handed)).toBeNull();
  });

  test('allowlisted values pass; nested objects never do; dates become ISO text', () => {
    const at = new Date('2026-11-25T10:00:00Z');
    expect(
      auditValues('key.created', {
        key_id: 'key_1',
        scopes: ['jobs.v1:read'],
        expires_at: at,
        name: { secret: 'sk_live_x' },
        environment: 'live',
        display_prefix: 'sk_live_ab12',
      }),
    ).toEqual({ key_id: 'key_1', scopes: ['jobs.v1:read'], expires_at: '2026-11-25T10:00:00.000Z', environment: 'live', display_prefix: 'sk_live_ab12' });
    expect(auditValues('budget.set', { budget: [{ secret: 'x' }] })).toBeNull();
    expect(auditValues('budget.set', null)).toBeNull();
  });

  test('actors are a person, a key, an M2M client or the operator', () => {
    for (const ok of ['user:usr_1', 'key:key_A', 'm2m:cli_x', 'operator']) expect(isAuditActor(ok)).toBe(true);
    for (const bad of ['user:', 'admin', 'key:a b', 'operator:x', '']) expect(isAuditActor(bad)).toBe(false);
  });
});
