/**
 * Which browser origins may call the tool server and the OAuth endpoints (MCP_ALLOWED_ORIGINS).
 * An entry is an exact origin (`https://inspector.example.com`) or an origin with any port
 * (`http://localhost:*`), which is how a local MCP Inspector is reached on a port it picks.
 */
export interface OriginRule {
  scheme: string;
  host: string;
  /** null: any port. */
  port: string | null;
}

export function parseOriginRule(entry: string): OriginRule | null {
  const m = /^(https?):\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}|\*))?$/.exec(entry.trim());
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  const host = m[2].toLowerCase();
  const port = m[3] === '*' ? null : (m[3] ?? (scheme === 'https' ? '443' : '80'));
  return { scheme, host, port };
}

/** The rule list for `entries`; throws naming the first entry that is not an origin. */
export function originRules(entries: readonly string[]): OriginRule[] {
  return entries.map((entry) => {
    const rule = parseOriginRule(entry);
    if (!rule) throw new Error(`not an origin: ${entry} (expected scheme://host[:port|:*])`);
    return rule;
  });
}

export function isOriginAllowed(origin: string, rules: readonly OriginRule[]): boolean {
  const offered = parseOriginRule(origin);
  if (!offered || offered.port === null) return false;
  return rules.some((r) => r.scheme === offered.scheme && r.host === offered.host && (r.port === null || r.port === offered.port));
}

/** The loopback origins a local MCP Inspector or a developer's page uses, on any port. */
export const LOOPBACK_ORIGINS = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*'];
