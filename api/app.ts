import Router from '@koa/router';
import Koa from 'koa';
import type { Deps } from '../core/deps';
import { gatheredKeyUseWrite, KeyUseRecorder } from '../core/keys/keyUse';
import { Problem } from '../core/problems';
import { originRules } from '../core/allowedOrigins';
import { accessLog } from './middleware/accessLog';
import { baselineAdmission } from './middleware/admission';
import { idempotencyKeyBeforeAdmission } from './middleware/idempotencyKey';
import { admissionUnder } from '../core/limits/operationAdmission';
import { authenticate, failedAuthenticationLimit } from './middleware/authenticate';
import { browserOrigins } from './middleware/browserOrigins';
import { problemDocuments } from './middleware/problemDocuments';
import { requestId } from './middleware/requestId';
import { requestLogger, requestLogging } from './requestLogger';
import { ROUTER_OPTIONS } from './routerOptions';
import { wellFormedHost } from './requestUrl';
import { toolServerRouter } from './mcp/toolServer';
import { isToolServerPath } from './mcp/toolPaths';
import { CONSOLE_ROOT } from './console/consolePaths';
import { oauthRouter } from './oauth/router';
import { publicOpenApi } from './reference/publicDocument';
import { referenceRouter } from './reference/referencePage';
import { mountRoutes } from './mountRoutes';
import { rememberMatches } from './rememberedMatches';
import type { RouteSpec } from './routeSpec';
import { healthRouter, type Probes } from './routes/health';
import { v1Routes } from './routes/index';

export interface AppParts {
  /** The app's dependencies, built by its composition root (api/server.ts, a test, a benchmark). */
  deps: Deps;
  probes: Probes;
}

/** The paths browser-based MCP clients call: discovery, token, registration and the tool server (every spelling it is served at). */
export function isBrowserClientPath(path: string): boolean {
  return (
    path.startsWith('/.well-known/') || path === '/api/oauth/token' || path === '/api/oauth/register' || path === '/api/oauth/jwks' || isToolServerPath(path)
  );
}

export { ROUTER_OPTIONS } from './routerOptions';

/**
 * The organization console (api/console/consoleRouter.ts), built at the first request under
 * /console: most apps a test starts serve no page of it, and loading its pages costs each of
 * them start-up. A replica loads them while it warms up (api/warmStart.ts), before it listens.
 */
function consoleOnFirstVisit(deps: Deps): ReturnType<Router['routes']> {
  let routes: Promise<ReturnType<Router['routes']>> | undefined;
  return async (ctx, next) => {
    if (ctx.path !== CONSOLE_ROOT && !ctx.path.startsWith(`${CONSOLE_ROOT}/`)) return next();
    const built = (routes ??= import('./console/consoleRouter').then(({ consoleRouter }) => consoleRouter(deps).routes()));
    return (await built)(ctx, next);
  };
}

/**
 * Last line of defence: no /v1 handler runs without the principal authentication sets. Only a
 * wiring mistake can reach it, so it fails closed (401) and says so in the log.
 */
export const requirePrincipal: Koa.Middleware = (ctx, next) => {
  if (!ctx.state.principal) {
    requestLogger(ctx).error({ path: ctx.path }, 'a /v1 route was reached without a principal');
    throw new Problem('missing_api_key', 'Send your API key as `Authorization: Bearer <API_KEY>`.');
  }
  return next();
};

/**
 * The /v1 router: authentication, baseline admission and the principal guard run first in each
 * of its routes, so they run for every request a /v1 route matches, whatever else the app
 * mounts. A path no route matches exactly (`/V1/…`, `/v1/whoami/`, `//v1/…`, `/v1%2F…`,
 * `/v1/./…`) reaches no handler: 404.
 */
export function v1Router(deps: Deps, routes: RouteSpec[]): Router {
  const { config, usage } = deps;
  const v1 = new Router(ROUTER_OPTIONS);
  // In each route rather than the router's `use`: the router runs `use` layers only for a request
  // a route matched anyway, and matches and composes each of them again on every request.
  const authenticated = authenticate(
    config,
    deps.keyReads,
    failedAuthenticationLimit(config, deps.addressLimits),
    new KeyUseRecorder(deps.logger, gatheredKeyUseWrite(deps.stores), deps.now),
    deps.now,
  );
  const admitted = baselineAdmission(admissionUnder(deps), usage);
  mountRoutes(v1, routes, deps, (spec) => [authenticated, ...idempotencyKeyBeforeAdmission(spec), admitted, requirePrincipal]);
  rememberMatches(v1);
  return v1;
}

/**
 * The other surfaces' routers (probes, reference, OAuth, console, tool server) serve no path
 * under /v1/, so a /v1/ request goes from here to the /v1 router and ends there: each of the
 * others would match every route of its own against the path, on the busiest road for nothing.
 * Any other path passes on and meets the /v1 router last.
 */
function v1Directly(v1: Router): Koa.Middleware {
  // The router's middleware takes the app's context (Koa.use accepts it so).
  const routes = v1.routes() as unknown as Koa.Middleware;
  const allowedMethods = v1.allowedMethods() as unknown as Koa.Middleware;
  const nothingAfter = () => Promise.resolve();
  return (ctx, next) => (ctx.path.startsWith('/v1/') ? routes(ctx, () => allowedMethods(ctx, nothingAfter)) : next());
}

/**
 * The whole middleware chain, in order, in one place:
 * request id → the request's logger → access log/metrics → problem documents → well-formed Host → a /v1/ path goes straight
 * to the /v1 router, any other on to: browser origins → unauthenticated probes and API
 * reference → OAuth token endpoint, discovery and JWKS, the organization console (its own session guard), and the MCP tool server at /tools (own
 * bearer-token validation, never API keys) → the /v1 router (authenticate → Idempotency-Key of idempotent routes → baseline admission →
 * principal guard → route: permission → operation admission → body → validation → idempotency →
 * handler) → 404/405.
 */
export function createApp({ deps, probes }: AppParts): Koa {
  const { config } = deps;
  // ctx.ip is the socket's peer unless TRUSTED_PROXY_HOPS proxies in front append to X-Forwarded-For.
  const app = new Koa({ proxy: config.trustedProxyHops > 0, maxIpsCount: config.trustedProxyHops });
  app.silent = true; // errors are logged once, by problemDocuments, with the request id

  app.use(requestId());
  app.use(requestLogging(deps.logger));
  // Outside problemDocuments, so the log and metrics see the final status of failures too.
  app.use(accessLog());
  app.use(problemDocuments());
  app.use(wellFormedHost());

  // Before browserOrigins, which applies to no /v1/ path.
  const v1 = v1Router(deps, v1Routes);
  app.use(v1Directly(v1));

  // Browser clients (MCP Inspector, web apps) reach the tool server and the OAuth endpoints they
  // call only from allowed origins; preflights are answered before any authentication.
  const ownOrigins = [config.baseUrl, config.authUrl, config.mcpUrl].map((u) => new URL(u).origin);
  app.use(browserOrigins({ rules: originRules([...new Set([...ownOrigins, ...config.allowedOrigins])]), applies: isBrowserClientPath }));

  const health = healthRouter(probes, { enabled: config.metricsEnabled, token: config.metricsToken });
  app.use(health.routes());

  app.use(referenceRouter(() => publicOpenApi(config)).routes());

  const oauth = oauthRouter(config, {
    signingKeys: deps.signingKeys,
    publicClients: deps.publicClients,
    decoy: deps.decoy,
    addressLimits: deps.addressLimits,
    now: deps.now,
    stores: deps.stores,
    purposeKeys: deps.purposeKeys,
  });
  app.use(oauth.routes());
  app.use(oauth.allowedMethods());
  app.use(consoleOnFirstVisit(deps));
  app.use(toolServerRouter(deps, v1Routes).routes());

  app.use(v1.routes());
  app.use(v1.allowedMethods());
  return app;
}
