import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'koa';
import { sessionlessToolServer } from './sessionlessToolServer';
import { statusOnOutage } from './storeOutage';
import { runToolCall, type ToolCall } from './toolCall';
import type { ToolEntry } from './toolCatalog';
import type { ToolDispatcher } from './toolDispatch';
import { toolListing, toolServerInstructions, toolsFor } from './toolCatalog';
import { toolResult } from './toolResult';

/** The 2025-era server (SDK 1.x): a fresh one per POST, stateless, JSON responses. */
function legacyServer(tools: readonly ToolEntry[], dispatcher: ToolDispatcher, call: ToolCall): Server {
  const server = new Server({ name: 'talent-platform-tools', version: '1.0.0' }, { capabilities: { tools: {} }, instructions: toolServerInstructions(tools) });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolsFor(tools, call.principal).map(toolListing),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const entry = tools.find((t) => t.definition.name === request.params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    return toolResult(await runToolCall(dispatcher, entry, args, call)) satisfies CallToolResult;
  });
  return server;
}

export interface ProtocolRevisions {
  /** Serves one authenticated, parsed JSON-RPC message with the server of the revision it carries. */
  serve(ctx: Context, raw: string, message: unknown, call: ToolCall): Promise<void>;
}

/**
 * The two protocol revisions of `/tools` over one catalogue and one dispatcher, chosen per
 * request by the SDK's own classification (sessionlessToolServer.ts): 2026-07-28 by the SDK 2.x
 * server, 2025-era requests by the SDK 1.x server. The SDKs load with this module.
 */
export function protocolRevisions(tools: readonly ToolEntry[], dispatcher: ToolDispatcher, maxMessageBytes: number): ProtocolRevisions {
  const sessionless = sessionlessToolServer(tools, dispatcher, maxMessageBytes);
  return {
    async serve(ctx, raw, message, call) {
      const request = sessionless.webRequest(ctx, raw);
      if (await sessionless.isSessionlessRequest(request, message)) return sessionless.serve(ctx, request, message, call);
      const server = legacyServer(tools, dispatcher, call);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      ctx.res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      // The transport writes the response itself; Koa must not touch it afterwards.
      ctx.status = 200;
      ctx.respond = false;
      statusOnOutage(ctx, call.outage);
      await transport.handleRequest(ctx.req, ctx.res, message);
    },
  };
}
