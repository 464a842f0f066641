import { Agent } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';

/** How many keep-alive pools one app keeps; the oldest is closed to make room. */
const MAX_POOLS = 256;

/** A CA set as the pinned fetch uses it: its name in a pool key and its TLS context. */
export interface TrustSet {
  key: string;
  context?: SecureContext;
}

/**
 * One app's outbound HTTPS connections to customers' URLs (core/outbound/pinnedFetch.ts): its
 * keep-alive pools, one per (host, port, pinned address, trust set), so a pooled socket is reused
 * only by a request whose own check approved the very address that socket is connected to, and a
 * socket verified against one CA set is never lent to a request that trusts another. A CA set
 * becomes one TLS secure context, built once: passed as `ca`, Node would parse every root
 * certificate again for each new connection and fold all of them into the pool key. The root
 * builds one (core/deps.ts) and closes it with the app.
 */
export class OutboundConnections {
  private readonly pools = new Map<string, Agent>();
  private readonly trustSets = new WeakMap<string[], { id: number; context: SecureContext }>();
  private nextTrustId = 1;

  /** The trust set of `ca` (the same array each time: core/outbound/trustAnchors.ts); undefined = the system roots. */
  trustSet(ca: string[] | undefined): TrustSet {
    if (!ca) return { key: 'system' };
    let set = this.trustSets.get(ca);
    if (!set) {
      set = { id: this.nextTrustId++, context: createSecureContext({ ca }) };
      this.trustSets.set(ca, set);
    }
    return { key: `ca${set.id}`, context: set.context };
  }

  /** The keep-alive pool for one pinned destination under one trust set. */
  pool(destination: string, trust: TrustSet): Agent {
    const key = `${destination}|${trust.key}`;
    let agent = this.pools.get(key);
    if (!agent) {
      if (this.pools.size >= MAX_POOLS) {
        const [oldestKey, oldest] = this.pools.entries().next().value as [string, Agent];
        oldest.destroy();
        this.pools.delete(oldestKey);
      }
      agent = new Agent({ keepAlive: true, timeout: 5_000, maxSockets: 64, ...(trust.context ? { secureContext: trust.context } : {}) });
      this.pools.set(key, agent);
    }
    return agent;
  }

  /** Closes every pooled connection (the app's close). */
  close(): void {
    for (const agent of this.pools.values()) agent.destroy();
    this.pools.clear();
  }
}
