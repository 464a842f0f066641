import { startTestApi, type TestApi } from '../support/testApi';

/** CORS for browser-based MCP clients, and Origin validation on the tool server. */
const INSPECTOR = 'http://localhost:6274';
let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi({ MCP_ALLOWED_ORIGINS: 'http://localhost:*,https://inspector.example.com' });
});
afterAll(async () => srv.close());

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

// Every spelling the tool server is served at gets one Origin rule, one CORS answer and one preflight answer.
describe.each(['/tools', '/tools/'])('browser clients and Origin on %s', (toolsPath) => {
  test('a foreign Origin is refused with 403 before any work (DNS rebinding)', async () => {
    const res = await fetch(`${srv.url}${toolsPath}`, {
      method: 'POST',
      headers: { Origin: 'http://evil.example.com', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'origin_not_allowed', status: 403 });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('www-authenticate')).toBeNull(); // refused before authentication ran
  });

  test("CORS preflight from the Inspector's origin is answered before authentication", async () => {
    const res = await fetch(`${srv.url}${toolsPath}`, {
      method: 'OPTIONS',
      headers: {
        Origin: INSPECTOR,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, mcp-protocol-version',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('mcp-protocol-version'));
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toEqual(expect.stringContaining('authorization'));
    expect(res.headers.get('vary')).toContain('Origin');
  });

  test('an allowed origin reads the 401 challenge: WWW-Authenticate is exposed', async () => {
    const res = await fetch(`${srv.url}${toolsPath}`, {
      method: 'POST',
      headers: { Origin: INSPECTOR, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
    expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  test('a request without Origin (a server-side client) is unaffected', async () => {
    const res = await fetch(`${srv.url}${toolsPath}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('browser clients and Origin', () => {
  test('spellings the tool server is not served at reach no handler, with or without Origin', async () => {
    for (const path of ['/tools//', '/Tools', '/tools/x']) {
      const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers: { Origin: INSPECTOR, 'Content-Type': 'application/json' }, body: initialize });
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test.each([
    ['/.well-known/oauth-protected-resource/tools', 'GET'],
    ['/.well-known/oauth-authorization-server', 'GET'],
    ['/api/oauth/token', 'POST'],
  ])('discovery and the token endpoint carry CORS for an allowed origin (%s)', async (path, method) => {
    const preflight = await fetch(`${srv.url}${path}`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://inspector.example.com', 'Access-Control-Request-Method': method },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://inspector.example.com');
    if (method === 'GET') {
      const res = await fetch(`${srv.url}${path}`, { headers: { Origin: 'https://inspector.example.com' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://inspector.example.com');
    }
  });

  test('the developer API is not opened to browsers', async () => {
    const res = await fetch(`${srv.url}/v1/whoami`, { headers: { Origin: INSPECTOR } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
