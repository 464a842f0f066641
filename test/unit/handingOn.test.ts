import { beyondOwn, requireWithinOwn, type HandingOn } from '../../core/keys/handingOn';
import { Problem } from '../../core/problems';

const OWN = ['candidates.search', 'jobs.v1:read'];

function refusal(change: HandingOn): Problem {
  try {
    requireWithinOwn(OWN, change);
  } catch (err) {
    return err as Problem;
  }
  throw new Error('the change was allowed');
}

describe('handing on permissions: nobody gets more than the person acting was given', () => {
  test('a new key, an invitation and a change within the own permissions are allowed', () => {
    expect(beyondOwn(OWN, { kind: 'key_created', scopes: ['candidates.search'] })).toEqual([]);
    expect(beyondOwn(OWN, { kind: 'person_invited', permissions: OWN })).toEqual([]);
    expect(beyondOwn(OWN, { kind: 'person_changed', before: ['jobs.v1:read'], after: OWN })).toEqual([]);
    expect(beyondOwn(OWN, { kind: 'person_changed', before: OWN })).toEqual([]);
    expect(() => requireWithinOwn(OWN, { kind: 'key_rotated', scopes: OWN })).not.toThrow();
  });

  test('a new key or an invitation beyond the own permissions is refused, naming each permission once', () => {
    const key = refusal({ kind: 'key_created', scopes: ['candidates.search', 'audit.v1:read', 'audit.v1:read'] });
    expect(key.status).toBe(403);
    expect(key.code).toBe('insufficient_scope');
    expect(key.detail).toBe('A key cannot have permissions you do not have yourself: audit.v1:read.');
    expect(refusal({ kind: 'person_invited', permissions: ['webhooks.v1:manage'] }).detail).toContain('webhooks.v1:manage');
  });

  test('rotating a key that carries any permission the person lacks is refused: its successor would keep it', () => {
    const r = refusal({ kind: 'key_rotated', scopes: ['candidates.search', 'audit.v1:read', 'usage.v1:read'] });
    expect(r.status).toBe(403);
    expect(r.detail).toBe('You cannot rotate this key: its successor would keep permissions you do not have yourself: audit.v1:read, usage.v1:read.');
  });

  test('a person who holds a permission the actor lacks can be neither changed nor disabled, even to take it away', () => {
    const demote = refusal({ kind: 'person_changed', before: ['candidates.search', 'audit.v1:read'], after: ['candidates.search'] });
    expect(demote.status).toBe(403);
    expect(demote.detail).toBe('You cannot change or disable this person: they hold permissions you do not have yourself: audit.v1:read.');
    expect(refusal({ kind: 'person_changed', before: ['audit.v1:read'] }).detail).toContain('they hold');
  });

  test('giving a person a permission the actor lacks is refused as giving', () => {
    expect(refusal({ kind: 'person_changed', before: ['candidates.search'], after: ['usage.v1:read'] }).detail).toBe(
      'You cannot give permissions you do not have yourself: usage.v1:read.',
    );
  });
});
