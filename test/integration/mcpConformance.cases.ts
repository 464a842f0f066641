import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../../core/oauth/clients';
import { installConformanceRuntime } from '../../scripts/conformanceRuntime';
import { createTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`)
 * against `/tools` with a real access token, for every server scenario that applies to a tool
 * server without prompts, resources, logging, sampling or elicitation (docs/oauth-and-tool-server.md, "Conformance"
 * lists the others and why). The suite has no option for a bearer token, so a small loopback
 * proxy adds the `Authorization` header to what the suite sends and passes everything else on.
 * The suite needs Node 22+: scripts/conformanceRuntime.ts provides it, or fails with one message.
 */
jest.setTimeout(300_000);

export const CONFORMANCE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

let srv: TestApi;
let proxy: Server;
let proxyUrl: string;
let runtime: { node: string; cli: string };

beforeAll(async () => {
  runtime = await installConformanceRuntime((m) => process.stderr.write(`[conformance] ${m}\n`));
  // As `npm run dev` runs it: a loopback server in development, whose default allowed origins are
  // the loopback ones; that is the server dns-rebinding-protection is written for.
  srv = await startTestApi({ ...OAUTH_ENV, NODE_ENV: 'development' });
  const tenant = await createTenant({ credits: 100 });
  const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  const token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
  const target = new URL(srv.url);
  proxy = createServer((req, res) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await srv?.close();
});

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.node, [runtime.cli, 'server', '--url', `${proxyUrl}/tools`, '--scenario', scenario], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the official MCP conformance suite against /tools', () => {
  test.each(CONFORMANCE_SCENARIOS)('%s passes', async (scenario) => {
    const { code, output } = await runScenario(scenario);
    if (code !== 0) process.stderr.write(`[conformance ${scenario}]\n${output}\n`);
    expect({ scenario, code }).toEqual({ scenario, code: 0 });
    expect(output).not.toMatch(/\bFAIL/);
  });
});
