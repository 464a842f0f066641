import { ConfigError, loadConfig } from '../../core/config';
import { checkDestination, isAddressAllowed, parseDestinationUrl, type LookupAll } from '../../core/outbound/destinationPolicy';

/** A resolver that answers from a table and never touches the network. */
const table: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'v6.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
  'rebind.example.com': ['169.254.169.254'],
  localhost: ['127.0.0.1', '::1'],
  'mapped.example.com': ['::ffff:192.168.1.1'],
  'empty.example.com': [],
};
const lookupAll: LookupAll = async (host) => {
  const answers = table[host];
  if (!answers) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

// [url, allowed?, reason when refused]
const CASES: Array<[string, boolean, string?]> = [
  // public destinations
  ['https://hooks.example.com/webhooks', true],
  ['https://hooks.example.com:443/webhooks', true],
  ['https://hooks.example.com:8443/webhooks?x=1', true],
  ['https://hooks.example.com./webhooks', true], // trailing dot is the same name
  ['https://HOOKS.EXAMPLE.COM/webhooks', true],
  ['https://v6.example.com/', true],
  ['https://93.184.216.34/', true],
  ['https://[2606:2800:220:1:248:1893:25c8:1946]/', true],
  ['https://[64:ff9b::5db8:d822]/', true], // NAT64 of a public address
  // scheme, credentials, ports
  ['http://hooks.example.com/', false, 'not_https'],
  ['ftp://hooks.example.com/', false, 'not_https'],
  ['not a url', false, 'not_a_url'],
  ['https://user:pass@hooks.example.com/', false, 'credentials_in_url'],
  ['https://user@hooks.example.com/', false, 'credentials_in_url'],
  ['https://hooks.example.com:80/', false, 'port_not_allowed'],
  ['https://hooks.example.com:22/', false, 'port_not_allowed'],
  ['https://hooks.example.com:1023/', false, 'port_not_allowed'],
  // loopback, private, link-local, CGNAT, metadata, multicast, unspecified, broadcast
  ['https://127.0.0.1/', false, 'address_not_allowed'],
  ['https://127.1.2.3:8443/', false, 'address_not_allowed'],
  ['https://10.1.2.3/', false, 'address_not_allowed'],
  ['https://172.16.0.1/', false, 'address_not_allowed'],
  ['https://172.31.255.255/', false, 'address_not_allowed'],
  ['https://192.168.0.10/', false, 'address_not_allowed'],
  ['https://169.254.169.254/latest/meta-data', false, 'address_not_allowed'],
  ['https://100.64.0.1/', false, 'address_not_allowed'],
  ['https://100.127.255.254/', false, 'address_not_allowed'],
  ['https://224.0.0.1/', false, 'address_not_allowed'],
  ['https://239.255.255.250/', false, 'address_not_allowed'],
  ['https://0.0.0.0/', false, 'address_not_allowed'],
  ['https://255.255.255.255/', false, 'address_not_allowed'],
  ['https://192.0.2.1/', false, 'address_not_allowed'], // documentation range
  ['https://198.18.0.1/', false, 'address_not_allowed'], // benchmarking range
  // other IPv4 spellings of loopback and metadata
  ['https://2130706433/', false, 'address_not_allowed'], // decimal 127.0.0.1
  ['https://0177.0.0.1/', false, 'address_not_allowed'], // octal
  ['https://0x7f.0.0.1/', false, 'address_not_allowed'], // hex
  ['https://0x7f000001/', false, 'address_not_allowed'],
  ['https://127.1/', false, 'address_not_allowed'], // short form
  ['https://0xa9.0xfe.0xa9.0xfe/', false, 'address_not_allowed'], // hex metadata
  ['https://2852039166/', false, 'address_not_allowed'], // decimal metadata
  ['https://127.0.0.1./', false, 'address_not_allowed'], // trailing dot on a literal
  // IPv6 forms
  ['https://[::1]/', false, 'address_not_allowed'],
  ['https://[::]/', false, 'address_not_allowed'],
  ['https://[fe80::1]/', false, 'address_not_allowed'],
  ['https://[fc00::1]/', false, 'address_not_allowed'],
  ['https://[fd12:3456:789a::1]/', false, 'address_not_allowed'],
  ['https://[ff02::1]/', false, 'address_not_allowed'],
  ['https://[::ffff:127.0.0.1]/', false, 'address_not_allowed'],
  ['https://[::ffff:169.254.169.254]/', false, 'address_not_allowed'],
  ['https://[::ffff:10.0.0.1]/', false, 'address_not_allowed'],
  ['https://[64:ff9b::127.0.0.1]/', false, 'address_not_allowed'], // NAT64 of loopback
  ['https://[64:ff9b::a9fe:a9fe]/', false, 'address_not_allowed'], // NAT64 of metadata
  ['https://[2001:db8::1]/', false, 'address_not_allowed'], // documentation
  // forms a forbid-list misses: the allowlist refuses them because they are not plain global unicast
  ['https://[::127.0.0.1]/h', false, 'address_not_allowed'], // IPv4-compatible ::/96 (deprecated)
  ['https://[::a9fe:a9fe]/', false, 'address_not_allowed'], // ::/96 carrying the metadata address
  ['https://[::8.8.8.8]/', false, 'address_not_allowed'], // ::/96 even around a public IPv4
  ['https://[::ffff:0:127.0.0.1]/', false, 'address_not_allowed'], // SIIT / RFC 6145 translated
  ['https://[2002:7f00:1::]/', false, 'address_not_allowed'], // 6to4 embedding loopback
  ['https://[2002:c0a8:101::1]/', false, 'address_not_allowed'], // 6to4 embedding 192.168.1.1
  ['https://[2002:808:808::1]/', false, 'address_not_allowed'], // 6to4 at all (relay transition form)
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', false, 'address_not_allowed'], // Teredo
  ['https://[2001:2::1]/', false, 'address_not_allowed'], // IPv6 benchmarking
  ['https://[2001:10::1]/', false, 'address_not_allowed'], // ORCHID
  ['https://[2001:20::1]/', false, 'address_not_allowed'], // ORCHIDv2
  ['https://[3fff::1]/', false, 'address_not_allowed'], // documentation (RFC 9637)
  ['https://[100::1]/', false, 'address_not_allowed'], // discard-only
  ['https://[fec0::1]/', false, 'address_not_allowed'], // deprecated site-local
  ['https://[5f00::1]/', false, 'address_not_allowed'], // segment routing SIDs
  ['https://[::1:2]/', false, 'address_not_allowed'], // outside 2000::/3
  ['https://[4000::1]/', false, 'address_not_allowed'], // unassigned, outside 2000::/3
  ['https://[64:ff9b:1::a00:1]/', false, 'address_not_allowed'], // local-use NAT64 prefix
  ['https://[2620:4f:8000::1]/', false, 'address_not_allowed'], // AS112 IPv6
  ['https://0.1.2.3/', false, 'address_not_allowed'], // "this network" 0.0.0.0/8
  ['https://192.0.0.9/', false, 'address_not_allowed'], // IETF protocol assignments
  ['https://198.51.100.7/', false, 'address_not_allowed'], // TEST-NET-2
  ['https://203.0.113.9/', false, 'address_not_allowed'], // TEST-NET-3
  ['https://198.19.255.1/', false, 'address_not_allowed'], // benchmarking, upper half
  ['https://192.88.99.1/', false, 'address_not_allowed'], // 6to4 relay anycast
  ['https://192.31.196.1/', false, 'address_not_allowed'], // AS112
  ['https://192.52.193.1/', false, 'address_not_allowed'], // AMT
  ['https://240.0.0.1/', false, 'address_not_allowed'], // reserved class E
  ['https://1.1.1.1/', true], // public IPv4 still passes
  ['https://[2001:4860:4860::8888]/', true], // public IPv6 still passes
  ['https://[::ffff:8.8.8.8]/', true], // IPv4-mapped public passes, judged by its IPv4
  // names whose DNS answers are not public
  ['https://localhost/', false, 'address_not_allowed'],
  ['https://localhost./', false, 'address_not_allowed'],
  ['https://mixed.example.com/', false, 'address_not_allowed'], // one bad answer is enough
  ['https://rebind.example.com/', false, 'address_not_allowed'],
  ['https://mapped.example.com/', false, 'address_not_allowed'],
  ['https://empty.example.com/', false, 'no_address'],
  ['https://nxdomain.example.com/', false, 'no_address'],
  ['https://under_score..example.com/', false, 'host_not_allowed'],
];

describe('destination policy (DECISIONS.md "Webhook endpoints")', () => {
  test('the table has at least 60 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(60));

  const rows = CASES.map(([url, allowed, reason]) => ({ url, allowed, reason: reason ?? 'none' }));
  test.each(rows)('$url → allowed $allowed ($reason)', async ({ url, allowed, reason }) => {
    const verdict = await checkDestination(url, lookupAll, []);
    expect(verdict.ok).toBe(allowed);
    if (!verdict.ok) expect(verdict.reason).toBe(reason);
  });

  test('a literal host is judged without DNS', async () => {
    const never: LookupAll = async () => {
      throw new Error('must not resolve literals');
    };
    expect((await checkDestination('https://93.184.216.34/', never)).ok).toBe(true);
  });

  test('the pinned address is the first approved answer', async () => {
    const verdict = await checkDestination('https://hooks.example.com/x', lookupAll);
    expect(verdict.ok && verdict.pinned.address).toBe('93.184.216.34');
    expect(verdict.ok && verdict.destination.host).toBe('hooks.example.com');
    expect(verdict.ok && verdict.destination.port).toBe(443);
  });

  test('WEBHOOK_ALLOWED_CIDRS relaxes exactly the listed ranges', async () => {
    expect((await checkDestination('https://127.0.0.1:8443/', lookupAll, ['127.0.0.0/8'])).ok).toBe(true);
    expect((await checkDestination('https://localhost:8443/', lookupAll, ['127.0.0.0/8', '::1/128'])).ok).toBe(true);
    expect((await checkDestination('https://localhost:8443/', lookupAll, ['127.0.0.0/8'])).ok).toBe(false); // ::1 still refused
    expect((await checkDestination('https://10.0.0.1/', lookupAll, ['127.0.0.0/8'])).ok).toBe(false);
    expect((await checkDestination('https://[::ffff:127.0.0.1]/', lookupAll, ['127.0.0.0/8'])).ok).toBe(true);
    // a relaxation never lifts the scheme or port rules
    expect((await checkDestination('http://127.0.0.1:8443/', lookupAll, ['127.0.0.0/8'])).ok).toBe(false);
    expect((await checkDestination('https://127.0.0.1:80/', lookupAll, ['127.0.0.0/8'])).ok).toBe(false);
  });

  test('addresses with zone ids or garbage are refused', () => {
    expect(isAddressAllowed('fe80::1%eth0')).toBe(false);
    expect(isAddressAllowed('not-an-ip')).toBe(false);
    expect(isAddressAllowed('8.8.8.8')).toBe(true);
  });

  test('static parsing normalises the host', () => {
    const v = parseDestinationUrl('https://Hooks.Example.COM.:9443/a?b=c');
    expect(v.ok && v.destination.host).toBe('hooks.example.com');
    expect(v.ok && v.destination.port).toBe(9443);
    expect(v.ok && v.destination.literal).toBeNull();
  });
});

describe('relaxation settings', () => {
  const base = { SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };

  test('WEBHOOK_ALLOWED_CIDRS must list CIDR ranges and is empty by default', () => {
    expect(loadConfig(base).webhooks.allowedCidrs).toEqual([]);
    expect(loadConfig({ ...base, NODE_ENV: 'test', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8, ::1/128' }).webhooks.allowedCidrs).toEqual(['127.0.0.0/8', '::1/128']);
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOWED_CIDRS: '127.0.0.1' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, WEBHOOK_ALLOWED_CIDRS: 'localhost/8' })).toThrow(/WEBHOOK_ALLOWED_CIDRS/);
  });

  test('relaxations and a retry override are refused in production', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', WEBHOOK_EXTRA_CA_FILE: '/tmp/ca.pem' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', RETRY_DELAYS_MS: '1,1,1,1,1,1,1,1' })).toThrow(ConfigError);
  });
});
