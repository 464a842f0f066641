/**
 * Prints a fresh tool-server access token, for MCP clients that take a header helper command:
 *
 *   M2M_CLIENT_SECRET=… npm run --silent token -- --client-id cli_… [--auth-url URL] [--mcp-url URL] [--resource URL] [--json]
 *
 * The secret is read from an environment variable (M2M_CLIENT_SECRET, or the one named by
 * --secret-env), never from the command line, where it would land in shell history and `ps`.
 * The URLs come from the flags, else the environment, else the URLs `npm run dev` recorded in
 * .local/dev.env (see tokenUrls). --json prints the whole token response;
 * --headers prints `{"Authorization":"Bearer …"}` for clients whose header helper returns JSON headers.
 */
import { parseArgs } from './admin/command';
import { applyDevEnvDefaults } from './devEnv';

const trimSlash = (u: string) => u.replace(/\/+$/, '');

/**
 * Where the token comes from and which resource it is for. The token host is --auth-url, else
 * AUTH_URL, else BASE_URL, else http://127.0.0.1:8080. The resource is --resource, else
 * `${--mcp-url}/tools`; given only --auth-url, the tool server is taken to be on that host (as it
 * is unless MCP_URL is set), so the resource moves with it instead of naming another host's
 * tool server (`invalid_target`); otherwise `${MCP_URL}/tools`, with MCP_URL defaulting like AUTH_URL.
 */
export function tokenUrls(flags: { authUrl?: string; mcpUrl?: string; resource?: string }, env: NodeJS.ProcessEnv): { authUrl: string; resource: string } {
  const fallback = env.BASE_URL || 'http://127.0.0.1:8080';
  const authUrl = trimSlash(flags.authUrl ?? (env.AUTH_URL || fallback));
  const mcpUrl = trimSlash(flags.mcpUrl ?? (flags.authUrl ? authUrl : env.MCP_URL || fallback));
  return { authUrl, resource: flags.resource ?? `${mcpUrl}/tools` };
}

async function main(): Promise<number> {
  const { flags } = parseArgs(process.argv.slice(2));
  const str = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
  const clientId = str('client-id') ?? process.env.M2M_CLIENT_ID;
  const secretEnv = str('secret-env') ?? 'M2M_CLIENT_SECRET';
  const secret = process.env[secretEnv];
  if (!clientId) throw new Error('--client-id (or M2M_CLIENT_ID) is required');
  if (!secret) throw new Error(`set the client secret in the ${secretEnv} environment variable`);
  applyDevEnvDefaults();
  const { authUrl, resource } = tokenUrls({ authUrl: str('auth-url'), mcpUrl: str('mcp-url'), resource: str('resource') }, process.env);
  const res = await fetch(`${authUrl}/api/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: 'Basic ' + Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64'),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:tools', resource }).toString(),
  }).catch((err: Error) => {
    throw new Error(`cannot reach ${authUrl}: ${(err.cause as Error | undefined)?.message ?? err.message}`);
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (res.status !== 200 || typeof body.access_token !== 'string') {
    const retry = res.headers.get('retry-after');
    const target = body.error === 'invalid_target' ? ` (resource ${resource}: pass --mcp-url or --resource with the tool server's URL)` : '';
    throw new Error(`token request failed: HTTP ${res.status} ${String(body.error ?? '')}${target}${retry ? ` (retry after ${retry} s)` : ''}`);
  }
  const out = flags.json ? JSON.stringify(body) : flags.headers ? JSON.stringify({ Authorization: `Bearer ${body.access_token}` }) : body.access_token;
  process.stdout.write(out + '\n');
  return 0;
}

if (require.main === module)
  main().then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`error: ${err.message.split('\n').join(' ')}\n`);
      process.exit(1);
    },
  );
