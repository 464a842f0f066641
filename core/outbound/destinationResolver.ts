import { lookup } from 'node:dns/promises';
import type { LookupAll, ResolvedAddress } from './destinationPolicy';

/**
 * A lookup that has not answered by then fails (no address): registration answers 422 rather
 * than hang, and an attempt's own 15 s budget covers it too (core/webhooks/sendAttempt.ts).
 * The system resolver cannot be cancelled; the lookup goes on in libuv's thread pool.
 */
export const DNS_LOOKUP_TIMEOUT_MS = 5_000;

/**
 * The DNS lookup of the destination checks, at registration and before every attempt. Each
 * composition root passes the one it uses (core/deps.ts, the worker's activities), so a test
 * answers differently at registration and at send time (a DNS rebinding rehearsal) without a
 * DNS server.
 */
export const systemDestinationLookup: LookupAll = async (host) => {
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
