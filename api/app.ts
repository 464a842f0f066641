import Router from '@koa/router';
import Koa from 'koa';
import type { Config } from '../core/config';
import { accessLog } from './middleware/accessLog';
import { baselineAdmission } from './middleware/admission';
import { authenticate } from './middleware/authenticate';
import { problemDocuments } from './middleware/problemDocuments';
import { requestId } from './middleware/requestId';
import { toolServerRouter } from './mcp/toolServer';
import { oauthOpenApiPaths } from './oauth/openApiPaths';
import { oauthRouter } from './oauth/router';
import { buildOpenApi } from './openapi';
import { mountRoutes } from './routeSpec';
import { healthRouter, type Probes } from './routes/health';
import { v1Routes } from './routes/index';

export interface AppDeps {
  config: Config;
  probes: Probes;
}

const isV1 = (path: string) => path === '/v1' || path.startsWith('/v1/');
/** A /v1 request never matches the probes, the reference, OAuth or /tools: it skips their routers. */
function outsideV1<C extends { path: string }>(mw: (ctx: C, next: Koa.Next) => unknown): (ctx: C, next: Koa.Next) => unknown {
  return (ctx, next) => (isV1(ctx.path) ? next() : mw(ctx, next));
}

/**
 * The whole middleware chain, in order, in one place:
 * request id → access log/metrics → problem documents → unauthenticated probes and API
 * reference → OAuth token endpoint, discovery and JWKS, and the MCP tool server at /tools (own
 * bearer-token validation, never API keys) → (/v1) authenticate → baseline admission → route (permission → operation
 * admission → body → validation → idempotency → handler) → 404/405.
 */
export function createApp({ config, probes }: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // errors are logged once, by problemDocuments, with the request id

  app.use(requestId());
  // Outside problemDocuments, so the log and metrics see the final status of failures too.
  app.use(accessLog());
  app.use(problemDocuments());

  const health = healthRouter(probes, config.metricsEnabled);
  app.use(outsideV1(health.routes()));

  const openapi = buildOpenApi(v1Routes, { baseUrl: config.baseUrl, extraPaths: oauthOpenApiPaths(config.authUrl) });
  const reference = new Router();
  reference.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  app.use(outsideV1(reference.routes()));

  const oauth = oauthRouter(config);
  app.use(outsideV1(oauth.routes()));
  app.use(outsideV1(oauth.allowedMethods()));
  app.use(outsideV1(toolServerRouter(config, v1Routes).routes()));

  const v1Auth = authenticate(() => config.apiAudience);
  const v1Admission = baselineAdmission();
  app.use(async (ctx, next) => {
    if (!isV1(ctx.path)) return next();
    await v1Auth(ctx, () => v1Admission(ctx, next));
  });

  const v1 = new Router();
  mountRoutes(v1, v1Routes);
  app.use(v1.routes());
  app.use(v1.allowedMethods());
  return app;
}
