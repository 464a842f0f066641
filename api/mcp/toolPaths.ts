import Router from '@koa/router';

/**
 * The tool server's path and the router options it is mounted with: case-sensitive like every
 * router, but not strict, so `/tools/` is the same endpoint (clients configured with a trailing
 * slash post there and name it as their resource). `isToolServerPath` asks a router built from
 * the very same path and options, so the Origin check, CORS and preflight answers apply to
 * exactly the spellings the tool server answers, whatever those options admit.
 */
export const TOOLS_PATH = '/tools';

export const TOOL_SERVER_ROUTER_OPTIONS = { sensitive: true, strict: false } as const;

const spellings = new Router(TOOL_SERVER_ROUTER_OPTIONS);
spellings.all(TOOLS_PATH, () => undefined);

export function isToolServerPath(path: string): boolean {
  // Every spelling starts with the path itself; the prefix test keeps other requests off the matcher.
  return path.startsWith(TOOLS_PATH) && spellings.match(path, 'POST').route;
}
