import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { sha256Hex } from '../core/crypto/hash';
import type { Deps } from '../core/deps';

/**
 * What an API replica does after its dependencies are open and before it listens. Without it,
 * the first requests a user sends pay at once for compiling the request path, opening the store's
 * connections and the first reads of each collection, and queue behind each other: the tail of a
 * new replica's first second. Nothing here writes to the store or reaches a tenant: the reads
 * look up a key and an organization that do not exist, and the requests carry no credential, so
 * each is answered before any store work.
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
      Promise.all([deps.keyReads.byHash(sha256Hex(`${absent}:${i}`), 0), deps.limitSettings.get({ readCacheMs: 0 }, `${absent}:${i}`)]),
    ),
  );

  // The twin's lines go nowhere: a replica's log starts with what its users did.
  const app = twinApp({ ...deps, logger: deps.logger.child({}, { level: 'silent' }) });
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    await sendWarmRequests(server);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function sendWarmRequests(server: Server): Promise<void> {
  const { port } = server.address() as AddressInfo;
  let sent = 0;
  const worker = async () => {
    while (sent < WARM_REQUESTS) {
      const path = WARM_PATHS[sent++ % WARM_PATHS.length];
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { redirect: 'manual' });
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: WARM_CONCURRENCY }, worker));
}
