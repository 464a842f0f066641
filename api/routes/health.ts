import Router from '@koa/router';
import { constantTimeEqual } from '../../core/crypto/hash';
import { metricsRegistry } from '../../core/observability/metrics';
import { Problem } from '../../core/problems';

export interface Probes {
  store: () => Promise<boolean>;
  temporal: () => Promise<boolean>;
}

export interface MetricsAccess {
  enabled: boolean;
  /** When set, /metrics answers only `Authorization: Bearer <token>`. */
  token?: string;
}

const BEARER = /^Bearer (\S+)$/i;

/** Unauthenticated probes: liveness, readiness (store and Temporal reachable); metrics behind METRICS_TOKEN. */
export function healthRouter(probes: Probes, metrics: MetricsAccess): Router {
  const router = new Router({ sensitive: true, strict: true });
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
  if (metrics.enabled) {
    const token = metrics.token;
    router.get('/metrics', async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      if (token) {
        const presented = BEARER.exec(ctx.get('Authorization'))?.[1];
        if (!presented || !constantTimeEqual(presented, token)) {
          throw new Problem(presented ? 'invalid_api_key' : 'missing_api_key', 'Metrics need `Authorization: Bearer <METRICS_TOKEN>`.', {
            headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
          });
        }
      }
      ctx.type = metricsRegistry.contentType;
      ctx.body = await metricsRegistry.metrics();
    });
  }
  return router;
}
