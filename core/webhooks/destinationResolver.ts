import { lookup } from 'node:dns/promises';
import type { LookupAll, ResolvedAddress } from './destinationPolicy';

/**
 * The DNS lookup used by the destination checks, at registration and before every attempt.
 * Replaceable so tests can answer differently at registration and at send time (a DNS
 * rebinding rehearsal) without a DNS server.
 */
const systemLookup: LookupAll = async (host) => {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((a): ResolvedAddress => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

let current: LookupAll = systemLookup;

export function destinationLookup(): LookupAll {
  return current;
}

/** Tests only: swap the resolver; returns a function that restores the system one. */
export function setDestinationLookup(lookupAll: LookupAll): () => void {
  current = lookupAll;
  return () => {
    current = systemLookup;
  };
}
