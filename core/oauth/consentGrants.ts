import { newId } from '../ids';
import { consentGrantsOf, deleteConsentGrant, findConsentGrantByPair, insertConsentGrant, type GrantRecord } from './store';
import { revokeChainsOf } from './tokenChains';

/**
 * A person's remembered consent to one client (DECISIONS.md "Interactive sign-in"): asked once,
 * kept until revoked (by the person on the "Connected applications" page, or by the operator).
 * Revoking deletes the grant and revokes every token chain of that person and client.
 */
export type { GrantRecord } from './store';

export function pairKeyOf(userId: string, clientId: string): string {
  return `${userId} ${clientId}`;
}

export async function findGrant(userId: string, clientId: string): Promise<GrantRecord | null> {
  return findConsentGrantByPair(pairKeyOf(userId, clientId));
}

/** Records consent; a concurrent or earlier consent to the same client is the same grant. */
export async function recordConsent(input: { userId: string; clientId: string; clientName: string; scope: string }, now = new Date()): Promise<GrantRecord> {
  const doc = { _id: newId('cg'), pairKey: pairKeyOf(input.userId, input.clientId), ...input, createdAt: now };
  if (await insertConsentGrant(doc)) return doc;
  const existing = await findGrant(input.userId, input.clientId);
  if (!existing) throw new Error('a consent grant was reported stored but cannot be read');
  return existing;
}

export async function listGrants(userId: string): Promise<GrantRecord[]> {
  return consentGrantsOf(userId);
}

/** Revokes one grant (clientId given) or all of a person's grants; returns the revoked client ids. */
export async function revokeGrants(userId: string, clientId?: string, now = new Date()): Promise<string[]> {
  const grants = clientId === undefined ? await listGrants(userId) : [await findGrant(userId, clientId)].filter((g): g is GrantRecord => g !== null);
  for (const g of grants) await deleteConsentGrant(g._id);
  // Chains are revoked even without a grant: a code redeemed while the grant was being deleted.
  await revokeChainsOf(userId, clientId, now);
  return grants.map((g) => g.clientId);
}
