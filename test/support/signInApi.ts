import { startApi } from '../../api/server';
import { freePort } from '../../scripts/localServices';
import { runAdminWith, type AdminResult } from './adminCli';
import { testLogger } from './capturedLogs';
import { rememberFileStores } from './testStore';
import { testConfig } from './testConfig';
import type { TestApi } from './testApi';

/**
 * The real API for the browser sign-in tests, started by `startApi` like `api/server.ts`: unlike
 * `startTestApi` it knows its port before it starts, so AUTH_URL and MCP_URL are its own URL. A
 * browser and the MCP SDK follow the links the server publishes (metadata, redirects, setup
 * links), so those must reach this server. The port is chosen before it is bound, so another
 * process may take it in between: then another one is chosen. `parts` as for `startApi` (a
 * test's clock). `hostName` names the server in its URLs (it listens on 127.0.0.1 either way):
 * `localhost` for passkeys, which browsers bind to a host name and never offer on an IP address.
 */
export async function startSignInApi(
  env: Record<string, string> = {},
  parts: Parameters<typeof startApi>[1] = {},
  { hostName = '127.0.0.1' }: { hostName?: '127.0.0.1' | 'localhost' } = {},
): Promise<TestApi> {
  for (let tries = 1; ; tries++) {
    const port = await freePort();
    const url = `http://${hostName}:${port}`;
    const config = testConfig({ BASE_URL: url, AUTH_URL: url, MCP_URL: url, ...env });
    try {
      const api = await startApi({ ...config, host: '127.0.0.1', port }, { logger: testLogger(config.logLevel), ...parts });
      const forgetStores = rememberFileStores(api.deps.stores);
      return {
        url,
        config,
        server: api.server,
        flushUsage: api.flushUsage,
        signingKeys: api.signingKeys,
        publicClients: api.publicClients,
        deps: api.deps,
        close: async () => {
          api.server.closeAllConnections();
          forgetStores();
          await api.close();
        },
      };
    } catch (err) {
      // startApi closed the store connections it opened: try the next port.
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || tries >= 5) throw err;
    }
  }
}

export type CliResult = AdminResult;

/** The operator CLI's commands, run in this process with the test API's dependencies (its store, Temporal and URLs). */
export function adminCli(srv: TestApi, ...args: string[]): Promise<CliResult> {
  return runAdminWith(srv.deps, args);
}

export interface CreatedUser {
  userId: string;
  email: string;
  setupUrl: string;
}

/** `user create` through the CLI (`--role` when given); fails the test with the CLI's own error line when it fails. */
export async function createUserWithCli(
  srv: TestApi,
  opts: { orgId: string; workspaceId: string; email: string; permissions: readonly string[]; role?: 'admin' | 'member' },
): Promise<CreatedUser> {
  const r = await adminCli(
    srv,
    'user',
    'create',
    '--org',
    opts.orgId,
    '--workspace',
    opts.workspaceId,
    '--email',
    opts.email,
    '--permissions',
    opts.permissions.join(','),
    ...(opts.role ? ['--role', opts.role] : []),
  );
  if (r.status !== 0 || !r.json?.user_id || !r.json?.setup_url) {
    throw new Error(`user create failed (exit ${r.status}): ${r.stderr.trim() || r.stdout.trim()}`);
  }
  return { userId: r.json.user_id, email: opts.email, setupUrl: r.json.setup_url };
}

let emails = 0;
/** A fresh address per call, so users never collide between tests or files. */
export function uniqueEmail(label = 'person'): string {
  emails += 1;
  return `${label}.${process.pid}.${Date.now().toString(36)}.${emails}@example.com`;
}
