import { LOOPBACK_ORIGINS, isOriginAllowed, originRules, parseOriginRule } from '../../core/allowedOrigins';

describe('allowed browser origins (MCP_ALLOWED_ORIGINS)', () => {
  const rules = originRules(['https://inspector.example.com', 'https://app.example.com:8443', ...LOOPBACK_ORIGINS]);

  test.each([
    ['https://inspector.example.com', true],
    ['https://inspector.example.com:443', true], // the default port is the same origin
    ['https://INSPECTOR.example.com', true],
    ['http://inspector.example.com', false], // another scheme is another origin
    ['https://inspector.example.com:444', false],
    ['https://evil.inspector.example.com', false],
    ['https://inspector.example.com.evil.example', false],
    ['https://app.example.com:8443', true],
    ['https://app.example.com', false],
    ['http://localhost:6274', true], // MCP Inspector's default port
    ['http://localhost:5173', true],
    ['http://127.0.0.1:3000', true],
    ['http://[::1]:6274', true],
    ['https://localhost:6274', false], // only the listed scheme
    ['http://evil.example.com', false],
    ['null', false], // sandboxed frames and file: pages
    ['', false],
    ['http://localhost:*', false], // a wildcard is a rule, never an origin
  ])('%s → %s', (origin, allowed) => {
    expect(isOriginAllowed(origin, rules)).toBe(allowed);
  });

  test('entries that are not origins are refused with the entry named', () => {
    expect(() => originRules(['https://ok.example.com', 'ok.example.com'])).toThrow(/ok\.example\.com/);
    expect(parseOriginRule('https://example.com/path')).toBeNull();
    expect(parseOriginRule('*')).toBeNull();
  });
});
