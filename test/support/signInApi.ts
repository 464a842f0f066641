import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createApp } from '../../api/app';
import { tuneServer } from '../../api/server';
import { logger } from '../../core/observability/logger';
import { connectStore, disconnectStore, ensureIndexes, pingStore } from '../../core/store/connection';
import { closeTemporalClient, pingTemporal } from '../../core/temporal/client';
import { freePort } from '../../scripts/localServices';
import { testConfig } from './testConfig';
import type { TestApi } from './testApi';

/**
 * The real API for the browser sign-in tests: unlike `startTestApi` it knows its port before it
 * starts, so AUTH_URL and MCP_URL are its own URL. A browser and the MCP SDK follow the links
 * the server publishes (metadata, redirects, setup links), so those must reach this server.
 */
export async function startSignInApi(env: Record<string, string> = {}): Promise<TestApi> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = testConfig({ BASE_URL: url, AUTH_URL: url, MCP_URL: url, ...env });
  logger.level = config.logLevel;
  await connectStore(config.mongodbUri);
  await ensureIndexes();
  const app = createApp({ config, probes: { store: pingStore, temporal: () => pingTemporal(config) } });
  const server = app.listen(port, '127.0.0.1');
  tuneServer(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return {
    url,
    config,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeTemporalClient();
      await disconnectStore();
    },
  };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

/** The operator CLI as an operator runs it (`npm run admin -- …`), against the test API's store and URLs. */
export function adminCli(srv: TestApi, ...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'scripts/admin.ts', ...args], {
    cwd: join(__dirname, '..', '..'),
    env: {
      PATH: process.env.PATH,
      MONGODB_URI: srv.config.mongodbUri,
      TEMPORAL_ADDRESS: srv.config.temporal.address,
      TEMPORAL_TASK_QUEUE: srv.config.temporal.taskQueue,
      SECRETS_ENCRYPTION_KEY: srv.config.secretsKey.toString('base64'),
      BASE_URL: srv.config.baseUrl,
      AUTH_URL: srv.config.authUrl,
      MCP_URL: srv.config.mcpUrl,
    },
    encoding: 'utf8',
    timeout: 90_000,
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

export interface CreatedUser {
  userId: string;
  email: string;
  setupUrl: string;
}

/** `user create` through the CLI; fails the test with the CLI's own error line when it fails. */
export function createUserWithCli(
  srv: TestApi,
  opts: { orgId: string; workspaceId: string; email: string; permissions: readonly string[] },
): CreatedUser {
  const r = adminCli(srv, 'user', 'create', '--org', opts.orgId, '--workspace', opts.workspaceId, '--email', opts.email, '--permissions', opts.permissions.join(','));
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
