import { requestUrl } from '../../api/requestUrl';
import { Problem } from '../../core/problems';
import { seededRandom as seeded } from '../support/seededRandom';

// Characters a Host header can carry once the HTTP parser has accepted it, weighted towards the ones with a meaning in a URL.
const PIECES = [
  ...'abcxyzABC019.-_~:[]@/\\?#% !$&\'()*+,;="<>^`{|}\t',
  '%00',
  '%41',
  '%zz',
  '::1',
  '65535',
  '65536',
  '99999',
  '255.255.255.255',
  '256.1.1.1',
  '0x7f.1',
  'xn--',
  'é',
  '\u0000',
  '\u200b',
  '\ud800',
  '..',
];

function randomHost(next: () => number): string {
  const length = Math.floor(next() * 12);
  let host = '';
  for (let i = 0; i < length; i++) host += PIECES[Math.floor(next() * PIECES.length)];
  return host;
}

/** The only failure requestUrl may have: the 400 problem. */
function outcome(host: string | undefined, path = '/tools'): URL | Problem {
  try {
    return requestUrl(host, path);
  } catch (err) {
    return err as Problem;
  }
}

function expectMalformed(result: URL | Problem): void {
  expect(result).toBeInstanceOf(Problem);
  expect((result as Problem).status).toBe(400);
  expect((result as Problem).code).toBe('malformed_request');
}

describe('the request URL built from the Host header', () => {
  test.each([
    ['example.com', 'http://example.com/tools'],
    ['example.com:8080', 'http://example.com:8080/tools'],
    ['EXAMPLE.com:', 'http://example.com/tools'],
    ['127.0.0.1:65535', 'http://127.0.0.1:65535/tools'],
    ['[::1]:3000', 'http://[::1]:3000/tools'],
    ['[::ffff:127.0.0.1]', 'http://[::ffff:7f00:1]/tools'],
    ['localhost', 'http://localhost/tools'],
    ['', 'http://localhost/tools'],
    [undefined, 'http://localhost/tools'],
  ])('%s is %s', (host, url) => {
    expect(String(outcome(host))).toBe(url);
  });

  test.each([
    'exa mple.com',
    '[::1',
    '::1]',
    '::1',
    'x:99999',
    'x:65536',
    'x:-1',
    'x:1e3',
    'x:80:80',
    'user@example.com',
    'example.com/path',
    'example.com?q',
    'example.com#f',
    'exam\\ple.com',
    'example.com\t',
    '256.1.1.1',
    '[::1]x',
    '[zz::1]',
    '%00',
    'ex%zzample',
    'é.example',
    ':80',
  ])('%j is a malformed request (400)', (host) => {
    expectMalformed(outcome(host));
  });

  test('a host longer than any real one is refused', () => {
    expectMalformed(outcome(`${'a'.repeat(2000)}.example`));
  });

  test('a request target that is not a path is refused the same way', () => {
    expectMalformed(outcome('example.com', '*'));
  });

  test('random and boundary Host values: a URL on that very host, or the 400 problem, nothing else', () => {
    const next = seeded(20261125);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 5_000; i++) {
      const host = randomHost(next);
      const result = outcome(host);
      if (result instanceof URL) {
        accepted++;
        // What was accepted names one origin and the path asked for: nothing of the Host leaks into the path, user or query.
        expect(result.pathname).toBe('/tools');
        expect(result.username + result.password + result.search + result.hash).toBe('');
        expect(new URL(result.origin).host).toBe(result.host);
      } else {
        refused++;
        expectMalformed(result);
      }
    }
    // Both branches were exercised, so the property says something.
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });
});
