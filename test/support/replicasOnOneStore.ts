import type { Config } from '../../core/config';
import { createDeps, type Deps } from '../../core/deps';
import { testLogger } from './capturedLogs';
import { testConfig } from './testConfig';
import { serveApp } from './testApi';
import { openTestStore, type TestStore } from './testStore';

/**
 * API replicas sharing one store, for a describe block about what one replica's change means on
 * another: the store opens before the block's tests, and every replica served and then the store
 * close after them. Each replica is an app of its own (its caches, its directory) on that store.
 */
export function replicasOnOneStore() {
  let cfg: Config | undefined;
  let store: TestStore | undefined;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    cfg = testConfig();
    store = await openTestStore(cfg);
  });
  afterAll(async () => {
    await Promise.all(closers.map((close) => close()));
    await store?.close();
  });
  const opened = () => {
    if (!cfg || !store) throw new Error("the replicas' store opens in beforeAll: use it inside a test");
    return { cfg, store };
  };
  return {
    get cfg(): Config {
      return opened().cfg;
    },
    get store(): TestStore {
      return opened().store;
    },
    /** A replica on the shared store with `parts` of its own (a store port that notes its reads, say). */
    async serve(parts: Partial<Omit<Deps, 'config' | 'stores'>> = {}) {
      const { cfg, store } = opened();
      const app = await serveApp(createDeps(cfg, { logger: testLogger(), store: store.handle, ...parts }));
      closers.push(app.close);
      return app;
    },
  };
}
