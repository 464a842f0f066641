import { randomUUID } from 'node:crypto';

/**
 * One API call of the chaos run, recorded with when it was sent and answered (same clock as
 * the API: one machine), so the ledger can count admissions per wall-clock second.
 */
export interface CallRecord {
  orgId: string;
  what: string;
  startedAt: number;
  endedAt: number;
  status: number;
  code?: string;
  retryAfter?: string;
  /** Network error or timeout (status 0). */
  error?: string;
  /** The API replica that was asked. */
  base?: string;
}

export interface CallResult {
  status: number;
  /** The parsed body; read field by field. */
  json: any;
  headers: Headers;
  ms: number;
}

export class ApiClient {
  readonly calls: CallRecord[] = [];

  constructor(private readonly baseUrl: () => string) {}

  async call(orgId: string, key: string, what: string, method: string, path: string, body?: unknown, timeoutMs = 20_000): Promise<CallResult> {
    const startedAt = Date.now();
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Idempotency-Key'] = randomUUID();
    }
    const base = this.baseUrl();
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      const endedAt = Date.now();
      const code = (json as { code?: string } | undefined)?.code;
      this.calls.push({ orgId, what, startedAt, endedAt, status: res.status, code, retryAfter: res.headers.get('retry-after') ?? undefined, base });
      return { status: res.status, json, headers: res.headers, ms: endedAt - startedAt };
    } catch (err) {
      const endedAt = Date.now();
      this.calls.push({ orgId, what, startedAt, endedAt, status: 0, error: (err as Error).name, base });
      return { status: 0, json: undefined, headers: new Headers(), ms: endedAt - startedAt };
    }
  }
}
