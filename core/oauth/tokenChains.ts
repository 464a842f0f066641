import { isDuplicateKeyError } from '../store/connection';
import { RefreshToken, TokenChain } from './models';

/**
 * Token chains of people's clients (see TokenChain in models.ts). Every access token of a
 * chain names it in `sid`, so revoking the chain stops its access tokens on the next tool call
 * as well as its refresh tokens.
 */
export interface ChainRecord {
  _id: string;
  userId: string;
  clientId: string;
  grantId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Starts the chain of a redeemed code; false when it already exists (the code was used before). */
export async function startChain(chain: { id: string; userId: string; clientId: string; grantId: string }, now = new Date()): Promise<boolean> {
  try {
    await TokenChain.create({ _id: chain.id, userId: chain.userId, clientId: chain.clientId, grantId: chain.grantId, createdAt: now });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

export async function liveChain(chainId: string): Promise<ChainRecord | null> {
  if (typeof chainId !== 'string' || chainId.length > 100) return null;
  const chain = await TokenChain.findById(chainId).lean<ChainRecord>();
  return chain && !chain.revokedAt ? chain : null;
}

/** Revokes one chain: its record (access tokens) and its refresh tokens. */
export async function revokeChain(chainId: string, now = new Date()): Promise<void> {
  await TokenChain.updateOne({ _id: chainId, revokedAt: null }, { $set: { revokedAt: now } });
  await RefreshToken.updateMany({ chainId, revokedAt: null }, { $set: { revokedAt: now } });
}

/** Revokes every chain of a person, or of a person with one client. */
export async function revokeChainsOf(userId: string, clientId?: string, now = new Date()): Promise<number> {
  const filter: Record<string, unknown> = { userId, revokedAt: null };
  if (clientId !== undefined) filter.clientId = clientId;
  const chains = await TokenChain.find(filter, { _id: 1 }).lean<Array<{ _id: string }>>();
  await TokenChain.updateMany(filter, { $set: { revokedAt: now } });
  const refreshFilter: Record<string, unknown> = { userId, revokedAt: null };
  if (clientId !== undefined) refreshFilter.clientId = clientId;
  await RefreshToken.updateMany(refreshFilter, { $set: { revokedAt: now } });
  return chains.length;
}
