import { connect } from 'node:net';
import { startTestApi, type TestApi } from '../support/testApi';

/** Sends raw bytes and reads until the server closes the connection. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      out += d;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(out));
  });
}

function parse(response: string): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  const [head, body] = response.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

let apiServer: TestApi;
beforeAll(async () => {
  apiServer = await startTestApi();
});
afterAll(async () => {
  await apiServer.close();
});

describe('requests the HTTP parser refuses', () => {
  test.each([
    ['an invalid header line', 'GET /v1/whoami HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n'],
    ['two Content-Length headers', 'POST /v1/candidates/search HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}'],
    ['a malformed request line', 'GET /v1/whoami HTTP/9\r\n\r\n'],
  ])('%s answers a 400 problem document with a request id, then closes', async (_name, bytes) => {
    const res = parse(await rawExchange(apiServer.url, bytes));
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/problem+json');
    expect(res.headers.connection).toBe('close');
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.body).toMatchObject({
      type: 'urn:service:developer-api:problem:malformed_request',
      status: 400,
      code: 'malformed_request',
      request_id: res.headers['x-request-id'],
    });
  });

  test('headers larger than the parser accepts answer 431 as a problem document', async () => {
    const res = parse(await rawExchange(apiServer.url, `GET /v1/whoami HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(res.status).toBe(431);
    expect(res.body).toMatchObject({ code: 'headers_too_large', status: 431 });
  });
});
