import Router from '@koa/router';
import { metricsRegistry } from '../../core/observability/metrics';

export interface Probes {
  store: () => Promise<boolean>;
  temporal: () => Promise<boolean>;
}

/** Unauthenticated probes: liveness, readiness (store and Temporal reachable), metrics. */
export function healthRouter(probes: Probes, metricsEnabled: boolean): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [store, temporal] = await Promise.all([probes.store(), probes.temporal()]);
    const ready = store && temporal;
    ctx.set('Cache-Control', 'no-store');
    ctx.status = ready ? 200 : 503;
    // Names which dependency is down, nothing more (no addresses, no errors).
    ctx.body = { status: ready ? 'ready' : 'unavailable', checks: { store: store ? 'ok' : 'down', temporal: temporal ? 'ok' : 'down' } };
  });
  if (metricsEnabled) {
    router.get('/metrics', async (ctx) => {
      ctx.type = metricsRegistry.contentType;
      ctx.body = await metricsRegistry.metrics();
    });
  }
  return router;
}
