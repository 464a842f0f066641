import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { noteStoreOutage, ToolStoreOutage, type OutageFlag } from './storeOutage';
import type { ToolEntry } from './toolCatalog';
import type { ToolDispatcher, ToolOutcome } from './toolDispatch';

/** What a `/tools` request's access line says beyond the HTTP fields (api/middleware/accessLog.ts). */
export interface ToolLogFields {
  /** The MCP method (`tools/call`, `tools/list`, `initialize`, …). */
  mcp_method?: string;
  tool?: string;
  client_id?: string;
  /** The problem code of a tool call whose result is an error. */
  code?: string;
}

/** One `/tools` request as both protocol revisions' servers run its tool call. */
export interface ToolCall {
  principal: KeyPrincipal;
  requestId: string;
  /** Where the call came from, for the audit entry of a change. */
  clientAddress?: string;
  outage: OutageFlag;
  log: ToolLogFields;
}

/** Runs a tool call through the dispatcher, noting a store outage and an error result's problem code. */
export async function runToolCall(dispatcher: ToolDispatcher, entry: ToolEntry, args: Record<string, unknown>, call: ToolCall): Promise<ToolOutcome> {
  try {
    const outcome = await noteStoreOutage(call.outage, () => dispatcher.run(entry, args, call.principal, call.requestId, call.clientAddress));
    const code = (outcome.body as { code?: unknown } | null)?.code;
    if (!outcome.ok && typeof code === 'string') call.log.code = code;
    return outcome;
  } catch (err) {
    if (err instanceof ToolStoreOutage && typeof err.data.code === 'string') call.log.code = err.data.code;
    throw err;
  }
}

/** The MCP method and tool name of a parsed JSON-RPC message, for its access line. */
export function toolLogFieldsOf(message: unknown): ToolLogFields {
  if (typeof message !== 'object' || message === null) return {};
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  const fields: ToolLogFields = {};
  if (typeof method === 'string') fields.mcp_method = method.slice(0, 100);
  if (method === 'tools/call' && typeof params?.name === 'string') fields.tool = params.name.slice(0, 100);
  return fields;
}
