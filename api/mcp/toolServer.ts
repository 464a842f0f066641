import Router from '@koa/router';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import type { Deps } from '../../core/deps';

import type { RouteSpec } from '../routeSpec';
import { createOperationExecutor } from '../operations/executeOperation';
import { operationRegistry } from '../operations/operationRegistry';
import { MAX_BODY_DEPTH, nestingExceeds } from '../jsonBody';
import { authenticateBearer, BearerRejection, sendBearerRejection, type ToolPrincipal } from './bearer';
import { availableTools } from './toolCatalog';
import { createToolDispatcher } from './toolDispatch';
import type { ProtocolRevisions } from './protocolRevisions';
import { TOOL_SERVER_ROUTER_OPTIONS, TOOLS_PATH } from './toolPaths';
import { isStoreUnavailable } from '../../core/store/storeUnavailable';
import { sendStoreOutage, type OutageFlag } from './storeOutage';
import { toolLogFieldsOf, type ToolLogFields } from './toolCall';

export { TOOLS_PATH };
const MAX_MESSAGE_BYTES = 65_536;
/** JSON-RPC's code for a request it will not take. */
const INVALID_REQUEST = -32600;

export { clientPrincipal } from './bearer';

function jsonRpcError(ctx: Context, status: number, code: number, message: string): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null };
}

/**
 * `{MCP_URL}/tools`: an MCP server over Streamable HTTP, behind bearer validation on every
 * request. Two protocol revisions, chosen per request by the SDK's own classification
 * (sessionlessToolServer.ts): 2026-07-28 (sessionless, `server/discover`, Mcp-Method/Mcp-Name) is
 * served by the SDK 2.x server; 2025-era requests by the SDK 1.x server in stateless mode (a
 * fresh server per POST, JSON responses). Both list one catalogue and run one dispatcher. GET (a server-initiated
 * event stream) and DELETE (session end) have no meaning without sessions: 405.
 *
 * One JSON-RPC message per POST: the client's rate (bearer.ts) counts POSTs, and a JSON-RPC
 * batch would carry up to 100 tool calls past it, so a batch is refused whole (400, -32600)
 * and none of its calls runs. MCP 2025-06-18 removed batching; the SDK's clients never send one.
 */
export function toolServerRouter(deps: Deps, routes: readonly RouteSpec[]): Router {
  const { config } = deps;
  const tools = availableTools(routes);
  const dispatcher = createToolDispatcher(createOperationExecutor(operationRegistry(routes), deps, undefined, deps.usage), deps.logger);
  // The MCP SDKs load on the first request that reaches them: an API that is never asked for
  // tools does not pay for them at start-up.
  let revisions: Promise<ProtocolRevisions> | undefined;
  const protocolServers = () => (revisions ??= import('./protocolRevisions').then((m) => m.protocolRevisions(tools, dispatcher, MAX_MESSAGE_BYTES)));
  // The options the browser-origin rule matches with too (toolPaths.ts): `/tools` and `/tools/`.
  const router = new Router(TOOL_SERVER_ROUTER_OPTIONS);
  router.all(TOOLS_PATH, async (ctx) => {
    let principal: ToolPrincipal;
    try {
      principal = await authenticateBearer(ctx, deps);
    } catch (err) {
      if (err instanceof BearerRejection) return sendBearerRejection(ctx, config, err);
      if (isStoreUnavailable(err)) return sendStoreOutage(ctx, ctx.state.requestId, err);
      throw err;
    }
    const log: ToolLogFields = { client_id: principal.clientId };
    ctx.state.logFields = log;
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      return jsonRpcError(ctx, 405, -32000, 'Method not allowed: this server is stateless; POST JSON-RPC messages.');
    }
    let message: unknown;
    let raw: string;
    try {
      raw = await getRawBody(ctx.req, { limit: MAX_MESSAGE_BYTES, length: ctx.get('Content-Length') || undefined, encoding: 'utf8' });
      message = JSON.parse(raw);
    } catch {
      ctx.set('Connection', 'close');
      return jsonRpcError(ctx, 400, -32700, `Parse error: send one JSON-RPC message of at most ${MAX_MESSAGE_BYTES} bytes.`);
    }
    Object.assign(log, toolLogFieldsOf(message));
    if (Array.isArray(message)) {
      return jsonRpcError(
        ctx,
        400,
        INVALID_REQUEST,
        'Invalid Request: JSON-RPC batches are not accepted; send one message per request, so that every tool call counts against the client rate.',
      );
    }
    // Tool arguments sit two levels down (message → params → arguments); they get the /v1 body depth.
    if (nestingExceeds(message, MAX_BODY_DEPTH + 3)) {
      return jsonRpcError(ctx, 400, INVALID_REQUEST, `Invalid Request: tool arguments nest deeper than ${MAX_BODY_DEPTH} levels.`);
    }
    // The protocol revision each request carries picks the server: 2026-07-28 (SDK 2.x) or 2025-era (SDK 1.x).
    const outage: OutageFlag = { storeUnavailable: false };
    await (await protocolServers()).serve(ctx, raw, message, { principal, requestId: ctx.state.requestId, clientAddress: ctx.ip || undefined, outage, log });
  });
  return router;
}
