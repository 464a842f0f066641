import { lookup } from 'node:dns/promises';
import type { LookupAll, ResolvedAddress } from './destinationPolicy';

/**
 * The DNS lookup used by the destination checks, at registration and before every attempt.
 * Replaceable so tests can answer differently at registration and at send time (a DNS
 * rebinding rehearsal) without a DNS server.
 */
/**
 * A lookup that has not answered by then fails (no address): registration answers 422 rather
 * than hang, and an attempt's own 15 s budget covers it too (core/webhooks/sendAttempt.ts).
 * The system resolver cannot be cancelled; the lookup goes on in libuv's thread pool.
 */
export const DNS_LOOKUP_TIMEOUT_MS = 5_000;

const systemLookup: LookupAll = async (host) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`DNS lookup of ${host} took over ${DNS_LOOKUP_TIMEOUT_MS} ms`), { code: 'ETIMEOUT' })),
      DNS_LOOKUP_TIMEOUT_MS,
    );
  });
  try {
    const answers = await Promise.race([lookup(host, { all: true, verbatim: true }), late]);
    return answers.map((a): ResolvedAddress => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
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
