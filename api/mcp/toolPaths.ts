/**
 * The tool server's path and every spelling of it that reaches the tool server: `/tools`, and
 * `/tools/` for clients configured with a trailing slash (which post there and name it as their
 * resource). The router mounts exactly these, and the Origin check, CORS and preflight answers
 * apply to exactly these, so no spelling reaches the tool server past a rule another skips.
 */
export const TOOLS_PATH = '/tools';

export const TOOLS_PATH_SPELLINGS: readonly string[] = [TOOLS_PATH, `${TOOLS_PATH}/`];

export function isToolServerPath(path: string): boolean {
  return TOOLS_PATH_SPELLINGS.includes(path);
}
