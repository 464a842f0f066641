import { request as httpRequest } from 'node:http';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/**
 * A raw HTTP client for tests: unlike fetch it can send duplicated headers and arbitrary
 * bytes, which the credential and body-limit tests need.
 */
export function rawRequest(
  baseUrl: string,
  opts: { method?: string; path: string; headers?: Array<[string, string]> | Record<string, string>; body?: string | Buffer },
): Promise<HttpResponse> {
  const url = new URL(opts.path, baseUrl);
  const headerList: Array<[string, string]> = Array.isArray(opts.headers) ? opts.headers : Object.entries(opts.headers ?? {});
  // With a raw header list Node adds no Host header; HTTP/1.1 servers refuse requests without one.
  const flat: string[] = ['Host', url.host];
  for (const [k, v] of headerList) flat.push(k, v);
  if (opts.body !== undefined && !headerList.some(([k]) => k.toLowerCase() === 'content-length' || k.toLowerCase() === 'transfer-encoding')) {
    flat.push('Content-Length', String(Buffer.byteLength(opts.body)));
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: opts.method ?? 'GET', headers: flat }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** JSON API call with a bearer key. */
export function api(
  baseUrl: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; idempotencyKey?: string } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  return rawRequest(baseUrl, { method, path, headers, body });
}

/**
 * `api` as a well-behaved client calls it (SPEC 7.2): a 429 `rate_limited` is retried once its
 * window has passed. For tests whose requests share an organization's window with other requests.
 * The wait is real time because the API under test reads the wall clock; a per-second refusal
 * waits only for the next wall-clock second (the window's start), not the whole rounded-up
 * Retry-After second.
 */
export async function apiHonouringRateLimits(...args: Parameters<typeof api>): Promise<HttpResponse> {
  for (;;) {
    const res = await api(...args);
    if (res.status !== 429 || res.json?.code !== 'rate_limited') return res;
    const waitMs = res.json.limit === 'requests_per_second' ? 1000 - (Date.now() % 1000) + 5 : Number(res.headers['retry-after'] ?? 1) * 1000;
    await new Promise((r) => setTimeout(r, waitMs));
  }
}
