import { Problem } from '../problems';
import { permissionsBeyond } from './permissions';

/**
 * The one rule for handing on permissions (docs/console.md "Nobody gets more than they were
 * given"): a person who makes or changes a credential or a person acts only within their own
 * permissions. Every permission the credential or person holds before the change, and every one
 * it holds after, must be one the acting person holds; otherwise the change is refused whole
 * (403), so nobody can hand on, keep alive by rotation, or take away what they were never given.
 * The service operator (the operator CLI) is the only actor above the rule and never calls it.
 */
export type HandingOn =
  /** A new key with these scopes. */
  | { kind: 'key_created'; scopes: readonly string[] }
  /** A successor of a key that carries these scopes (a rotation keeps them all). */
  | { kind: 'key_rotated'; scopes: readonly string[] }
  /** A new person with these permissions. */
  | { kind: 'person_invited'; permissions: readonly string[] }
  /** A person's role or permissions changed, or the person disabled (`after` absent). */
  | { kind: 'person_changed'; before: readonly string[]; after?: readonly string[] };

/** A refusal's reason and the permissions beyond `own` it names; null when the change is allowed. */
function refusalOf(own: readonly string[], change: HandingOn): { reason: string; beyond: string[] } | null {
  const refuse = (reason: string, beyond: string[]) => (beyond.length ? { reason, beyond } : null);
  switch (change.kind) {
    case 'key_created':
      return refuse('A key cannot have permissions you do not have yourself', permissionsBeyond(change.scopes, own));
    case 'key_rotated':
      return refuse('You cannot rotate this key: its successor would keep permissions you do not have yourself', permissionsBeyond(change.scopes, own));
    case 'person_invited':
      return refuse('You cannot give permissions you do not have yourself', permissionsBeyond(change.permissions, own));
    case 'person_changed':
      return (
        refuse('You cannot change or disable this person: they hold permissions you do not have yourself', permissionsBeyond(change.before, own)) ??
        refuse('You cannot give permissions you do not have yourself', permissionsBeyond(change.after ?? [], own))
      );
  }
}

/** What the change touches beyond `own`: the permissions it would hand on, keep alive or take away. Empty when allowed. */
export function beyondOwn(own: readonly string[], change: HandingOn): string[] {
  return refusalOf(own, change)?.beyond ?? [];
}

/** Refuses (403 `insufficient_scope`, naming what is beyond) a change that touches permissions `own` does not include. */
export function requireWithinOwn(own: readonly string[], change: HandingOn): void {
  const refusal = refusalOf(own, change);
  if (refusal) throw new Problem('insufficient_scope', `${refusal.reason}: ${refusal.beyond.join(', ')}.`);
}
