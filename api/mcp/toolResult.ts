import type { ToolOutcome } from './toolDispatch';

/** A tool outcome as an MCP `tools/call` result, the same for every protocol revision. */
export function toolResult(outcome: ToolOutcome) {
  const body = outcome.body;
  const structured = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(body) }],
    ...(structured ? { structuredContent: structured } : {}),
    isError: !outcome.ok,
  };
}
