import Router from '@koa/router';
import { constantTimeEqual } from '../../core/crypto/hash';
import { metricsRegistry } from '../../core/observability/metrics';
import { Problem } from '../../core/problems';
import { objectSchema } from '../reference/objectSchema';

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

/** The probes and metrics in the API reference. */
export function healthOpenApiPaths(metrics: MetricsAccess): Record<string, unknown> {
  const probe = { tags: ['Operations'], security: [] };
  const noStore = { 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } };
  const checks = objectSchema(['status', 'checks'], {
    status: { enum: ['ready', 'unavailable'] },
    checks: { type: 'object', properties: { store: { enum: ['ok', 'down'] }, temporal: { enum: ['ok', 'down'] } } },
  });
  const paths: Record<string, unknown> = {
    '/healthz': {
      get: {
        ...probe,
        operationId: 'healthz',
        summary: 'Liveness: the process answers',
        responses: {
          200: {
            description: 'Alive',
            headers: noStore,
            content: {
              'application/json': { schema: objectSchema(['status'], { status: { const: 'ok' } }), example: { status: 'ok' } },
            },
          },
          '4XX': { $ref: '#/components/responses/RequestRefused' },
        },
      },
    },
    '/readyz': {
      get: {
        ...probe,
        operationId: 'readyz',
        summary: 'Readiness: the store and Temporal are reachable',
        responses: {
          200: {
            description: 'Ready',
            headers: noStore,
            content: { 'application/json': { schema: checks, example: { status: 'ready', checks: { store: 'ok', temporal: 'ok' } } } },
          },
          '4XX': { $ref: '#/components/responses/RequestRefused' },
          503: {
            description: 'A dependency is down (named in `checks`)',
            headers: noStore,
            content: { 'application/json': { schema: checks, example: { status: 'unavailable', checks: { store: 'ok', temporal: 'down' } } } },
          },
        },
      },
    },
  };
  if (metrics.enabled) {
    paths['/metrics'] = {
      get: {
        ...probe,
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description: metrics.token
          ? "Only `Authorization: Bearer <METRICS_TOKEN>` is answered (the operator's token, not an API key)."
          : 'Unauthenticated on this deployment (no METRICS_TOKEN).',
        responses: {
          200: {
            description: 'Prometheus text exposition format',
            content: {
              'text/plain': {
                schema: { type: 'string' },
                example:
                  '# HELP http_requests_total HTTP requests answered, by route and status.\n# TYPE http_requests_total counter\nhttp_requests_total{method="POST",route="/v1/candidates/search",status="200"} 1027\n',
              },
            },
          },
          401: {
            description: '`missing_api_key` or `invalid_api_key`: the metrics token is missing or wrong',
            content: {
              'application/problem+json': {
                schema: { $ref: '#/components/schemas/Problem' },
                example: {
                  type: 'urn:service:developer-api:problem:invalid_api_key',
                  title: 'Invalid API key',
                  status: 401,
                  detail: 'The metrics token is not valid.',
                  code: 'invalid_api_key',
                },
              },
            },
          },
        },
      },
    };
  }
  return paths;
}
