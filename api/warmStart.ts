import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { sha256Hex } from '../core/crypto/hash';
import type { Deps } from '../core/deps';
import { displayPrefix, generateApiKey } from '../core/keys/apiKeyFormat';
import { KeyReads } from '../core/keys/apiKeys';
import { KEY_USE_PERIOD_MS } from '../core/keys/keyUse';
import type { ApiKeyRecord } from '../core/keys/store';
import { LimitSettingsReads } from '../core/limits/limitSettings';
import { StoreAdmission } from '../core/limits/requestAdmission';
import { UsageCounters } from '../core/usage/usageCounters';

/**
 * What an API replica does after its dependencies are open and before it listens. Without it,
 * the first requests a user sends pay at once for compiling the request path, opening the store's
 * connections and the first reads of each collection, and queue behind each other: the tail of a
 * new replica's first second. Nothing here reaches a tenant: the reads and the key-use write
 * look up a key and an organization that do not exist; the requests carry no credential, or the key of a synthetic
 * organization that only the twin app knows (see `warmTenants`).
 */
export interface WarmStartParts {
  /** Builds an app like the one about to listen, over the given dependencies (a silent logger's). */
  twinApp: (deps: Deps) => Koa;
  deps: Deps;
}

/** Concurrent store round trips: each pool then holds this many open connections. */
const STORE_CONNECTIONS = 8;
/** Requests through the twin app, and how many at a time. */
const WARM_REQUESTS = 200;
const WARM_CONCURRENCY = 10;
/**
 * Requests with a key, through authentication, admission, the operation executor and the usage
 * counters: the path every tenant's request takes. Until V8 has optimized it, a request there
 * costs several times its CPU, and a new replica's first users (every tenant starting together)
 * would queue behind each other for that. Enough requests for its hot functions to be optimized.
 */
const WARM_KEY_REQUESTS = 1000;
/** Synthetic organizations those requests spread over: each stays under the default per-second rate. */
const WARM_ORGANIZATIONS = 50;
/**
 * Paths every request passes near: a probe (the outer middleware), /v1 without a credential
 * (routing, authentication, problem documents), and the console's root, which loads the
 * console's pages (api/app.ts builds them at the first request under /console) and redirects.
 */
const WARM_PATHS = ['/healthz', '/v1/whoami', '/console'];

export async function warmStart({ twinApp, deps }: WarmStartParts): Promise<void> {
  await Promise.all(Array.from({ length: STORE_CONNECTIONS }, () => deps.store.ping()));

  const absent = `warm_${randomUUID()}`;
  await Promise.all(
    Array.from({ length: STORE_CONNECTIONS }, (_, i) =>
      Promise.all([
        deps.keyReads.byHash(sha256Hex(`${absent}:${i}`), 0),
        deps.limitSettings.get({ readCacheMs: 0 }, `${absent}:${i}`),
        // A key's first use is an update through the ODM's casting, the dearest code a tenant's
        // first request sets off; this one matches no key.
        deps.stores.keys.recordKeyUses([{ keyId: `${absent}:${i}`, at: new Date(deps.now()) }], KEY_USE_PERIOD_MS),
      ]),
    ),
  );

  // The twin's lines go nowhere: a replica's log starts with what its users did.
  const logger = deps.logger.child({}, { level: 'silent' });
  const tenants = warmTenants(deps, logger);
  const app = twinApp({ ...deps, ...tenants.parts, logger });
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    await sendWarmRequests(
      server,
      WARM_PATHS.map((path) => ({ path })),
      WARM_REQUESTS,
    );
    const statuses = await sendWarmRequests(
      server,
      tenants.keys.map((key) => ({ path: '/v1/whoami', authorization: `Bearer ${key}` })),
      WARM_KEY_REQUESTS,
    );
    // Anything else warmed a refusal's path, not the one tenants take.
    const other = [...statuses].find((status) => status !== 200);
    if (other !== undefined) throw new Error(`a warm-up request with a key was answered ${other}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await tenants.forget();
  }
}

/**
 * Synthetic organizations for the twin app: each a key that exists only in the twin's key reads
 * (the store's key collection is never asked for it, and its uses are not written), default limit
 * settings (read from the store, where none exist), and an admission of its own whose slots are
 * taken in the store like any tenant's (the store's insert and delete paths warm up too) and
 * deleted at the end. The usage counters count these requests and are never written.
 */
function warmTenants(deps: Deps, logger: Deps['logger']) {
  const run = randomUUID();
  const records = new Map<string, ApiKeyRecord>();
  const keys = Array.from({ length: WARM_ORGANIZATIONS }, (_, i) => {
    const key = generateApiKey('live');
    const hash = sha256Hex(key);
    records.set(hash, {
      _id: `key_warm_${run}_${i}`,
      hash,
      displayPrefix: displayPrefix(key),
      environment: 'live',
      audience: deps.config.apiAudience,
      orgId: `org_warm_${run}_${i}`,
      workspaceId: `ws_warm_${run}_${i}`,
      applicationId: `app_warm_${run}_${i}`,
      familyId: `fam_warm_${run}_${i}`,
      scopes: [],
    });
    return key;
  });
  const keyStore = {
    ...deps.stores.keys,
    keysByHashes: async (hashes: readonly string[]) => hashes.flatMap((h) => records.get(h) ?? []),
    recordKeyUses: async () => undefined,
  };
  const admission = new StoreAdmission(deps.stores.limits, deps.now, logger);
  return {
    keys,
    parts: {
      stores: { ...deps.stores, keys: keyStore },
      keyReads: new KeyReads(keyStore),
      limitSettings: new LimitSettingsReads(deps.stores.limits),
      admission,
      usage: new UsageCounters(deps.stores, { logger, now: deps.now }),
    } satisfies Partial<Deps>,
    forget: async () => {
      await admission.close();
      await admission.deleteEveryWindowSlot();
    },
  };
}

/** The statuses the requests were answered with. */
async function sendWarmRequests(server: Server, requests: Array<{ path: string; authorization?: string }>, count: number): Promise<Set<number>> {
  const { port } = server.address() as AddressInfo;
  const statuses = new Set<number>();
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      const { path, authorization } = requests[sent++ % requests.length];
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual', headers: authorization ? { authorization } : {} });
      await res.arrayBuffer();
      statuses.add(res.status);
    }
  };
  await Promise.all(Array.from({ length: WARM_CONCURRENCY }, worker));
  return statuses;
}
