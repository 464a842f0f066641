import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createMcpHandler, isLegacyRequest, ProtocolError, ProtocolErrorCode, Server, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Context } from 'koa';
import { toolListing, toolServerInstructions, toolsFor, type ToolEntry } from './toolCatalog';
import type { ToolDispatcher } from './toolDispatch';
import { toolResult } from './toolResult';
import { namedHost, requestUrl } from '../requestUrl';
import { STORE_RETRY_AFTER_SECONDS } from '../../core/store/storeUnavailable';
import { runToolCall, type ToolCall } from './toolCall';

/**
 * MCP 2026-07-28 on `/tools`, through the official SDK 2.x (`@modelcontextprotocol/server`):
 * sessionless, every request carries its protocol version in `_meta` and the `MCP-Protocol-Version`
 * header, `server/discover` instead of `initialize`, and `Mcp-Method` / `Mcp-Name` headers the
 * SDK checks against the body (a mismatch is answered 400 by the SDK's validation ladder).
 *
 * 2025-era requests (the `initialize` handshake, no per-request envelope) are not served here:
 * `isSessionlessRequest` sends them to the SDK 1.x server in toolServer.ts, so existing clients see
 * exactly what they saw before. Both serve one tool catalogue through one dispatcher.
 */
function sessionlessServer(tools: readonly ToolEntry[], dispatcher: ToolDispatcher, call: ToolCall): Server {
  const server = new Server({ name: 'talent-platform-tools', version: '1.0.0' }, { capabilities: { tools: {} }, instructions: toolServerInstructions(tools) });
  server.setRequestHandler('tools/list', async () => ({
    tools: toolsFor(tools, call.principal).map((t) => {
      const listed = toolListing(t);
      return { ...listed, inputSchema: listed.inputSchema as { type: 'object' }, outputSchema: listed.outputSchema as { type: 'object' } };
    }),
  }));
  server.setRequestHandler('tools/call', async (request) => {
    const entry = tools.find((t) => t.definition.name === request.params.name);
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    return toolResult(await runToolCall(dispatcher, entry, args, call));
  });
  return server;
}

/** The request as the SDK's web-standard face reads it: method, URL, headers and the body already read. */
function webRequest(ctx: Context, rawBody: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined || name === 'authorization' || name === 'cookie') continue; // authentication is done; the SDK never sees the token
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(requestUrl(namedHost(ctx), ctx.path), { method: ctx.method, headers, body: rawBody });
}

export interface SessionlessToolServer {
  /** Whether the SDK would serve this message as 2026-07-28 (the same classification the SDK's handler runs). */
  isSessionlessRequest(request: Request, message: unknown): Promise<boolean>;
  serve(ctx: Context, request: Request, message: unknown, call: ToolCall): Promise<void>;
  webRequest: typeof webRequest;
  close(): Promise<void>;
}

export function sessionlessToolServer(tools: readonly ToolEntry[], dispatcher: ToolDispatcher, maxMessageBytes: number): SessionlessToolServer {
  const handler: McpHttpHandler = createMcpHandler(
    // authInfo is the SDK's pass-through for who the caller is (it never reads it from headers).
    ({ authInfo }) => {
      const call = authInfo?.extra?.call as ToolCall | undefined;
      if (!call) throw new Error('a sessionless MCP request reached the server factory without its principal');
      return sessionlessServer(tools, dispatcher, call);
    },
    // 2025-era traffic goes to the SDK 1.x server instead. 'auto': one JSON body unless a handler emits a message first.
    { legacy: 'reject', responseMode: 'auto', maxRequestBodySize: maxMessageBytes },
  );
  return {
    isSessionlessRequest: async (request, message) => !(await isLegacyRequest(request, message, { maxRequestBodySize: maxMessageBytes })),
    webRequest,
    async serve(ctx, request, message, call) {
      const authInfo = { token: '', clientId: call.principal.keyId, scopes: [...call.principal.scopes], extra: { call } };
      const response = await handler.fetch(request, { parsedBody: message, authInfo });
      ctx.status = call.outage.storeUnavailable ? 503 : response.status;
      if (call.outage.storeUnavailable) ctx.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') ctx.set(name, value);
      });
      ctx.body = response.body ? Readable.fromWeb(response.body as unknown as NodeReadableStream) : null;
      if (!response.body) ctx.status = call.outage.storeUnavailable ? 503 : response.status;
    },
    close: () => handler.close(),
  };
}
