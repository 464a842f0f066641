import { tokenUrls } from '../../scripts/fetchToken';

describe('npm run token: the token host and the resource', () => {
  test('--auth-url moves the resource with it unless --mcp-url or --resource says otherwise', () => {
    const env = { MCP_URL: 'http://127.0.0.1:8080' };
    expect(tokenUrls({ authUrl: 'http://127.0.0.1:9999/' }, env)).toEqual({ authUrl: 'http://127.0.0.1:9999', resource: 'http://127.0.0.1:9999/tools' });
    expect(tokenUrls({ authUrl: 'https://auth.example.com', mcpUrl: 'https://mcp.example.com/' }, env)).toEqual({
      authUrl: 'https://auth.example.com',
      resource: 'https://mcp.example.com/tools',
    });
    expect(tokenUrls({ authUrl: 'https://auth.example.com', resource: 'https://mcp.example.com/tools' }, env).resource).toBe('https://mcp.example.com/tools');
  });

  test('without flags: AUTH_URL and MCP_URL, each defaulting to BASE_URL, then to the default port', () => {
    expect(tokenUrls({}, { BASE_URL: 'http://127.0.0.1:18080' })).toEqual({ authUrl: 'http://127.0.0.1:18080', resource: 'http://127.0.0.1:18080/tools' });
    expect(tokenUrls({}, { AUTH_URL: 'https://auth.example.com', MCP_URL: 'https://mcp.example.com' })).toEqual({
      authUrl: 'https://auth.example.com',
      resource: 'https://mcp.example.com/tools',
    });
    expect(tokenUrls({}, {})).toEqual({ authUrl: 'http://127.0.0.1:8080', resource: 'http://127.0.0.1:8080/tools' });
  });
});
