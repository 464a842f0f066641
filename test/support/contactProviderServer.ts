import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A real contact provider over HTTP on loopback, speaking the `http` provider contract
 * (core/contactProvider/httpProvider.ts). Answers are deterministic per person id; tests
 * script faults per request: latency, 5xx, 429 with Retry-After, and hangs (timeouts).
 */
export type Fault = { kind: 'status'; status: number; retryAfter?: string } | { kind: 'hang' } | { kind: 'delay'; ms: number };

export interface ProviderRequestLog {
  authorization: string | undefined;
  headers: IncomingMessage['headers'];
  personIds: string[];
  fields: string[];
  answered: number;
}

export interface ContactProviderServer {
  url: string;
  requests: ProviderRequestLog[];
  /** Faults applied to the next requests, one per request, in order. */
  faults: Fault[];
  /** A fault applied to every request whose people include this id (e.g. a person the provider always fails). */
  alwaysFail: Set<string>;
  latencyMs: number;
  close: () => Promise<void>;
}

/** Deterministic answer: about one person in five is not found (hash of the id). */
export function providerAnswerFor(personId: string): { status: 'found'; emails: string[]; phones: string[] } | { status: 'not_found' } {
  const h = createHash('sha256').update(personId).digest();
  if (h[0] % 5 === 0) return { status: 'not_found' };
  const tag = h.toString('hex').slice(0, 8);
  return { status: 'found', emails: [`p${tag}@example.test`], phones: [`+1555${String(h.readUInt32BE(1) % 10_000_000).padStart(7, '0')}`] };
}

export async function startContactProviderServer(opts: { token?: string; latencyMs?: number } = {}): Promise<ContactProviderServer> {
  const hanging = new Set<ServerResponse>();
  const state: Omit<ContactProviderServer, 'url' | 'close'> = { requests: [], faults: [], alwaysFail: new Set(), latencyMs: opts.latencyMs ?? 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let body: { people?: Array<{ person_id: string }>; fields?: string[] };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const personIds = (body.people ?? []).map((p) => p.person_id);
      const log: ProviderRequestLog = { authorization: req.headers.authorization, headers: req.headers, personIds, fields: body.fields ?? [], answered: 0 };
      state.requests.push(log);
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
        res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      const fault = state.faults.shift();
      if (state.latencyMs > 0) await new Promise((r) => setTimeout(r, state.latencyMs));
      if (fault?.kind === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (fault?.kind === 'delay') await new Promise((r) => setTimeout(r, fault.ms));
      if (fault?.kind === 'status') {
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (fault.retryAfter !== undefined) headers['Retry-After'] = fault.retryAfter;
        res.writeHead(fault.status, headers).end('{"error":"injected"}');
        return;
      }
      if (personIds.some((p) => state.alwaysFail.has(p))) {
        res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"error":"unavailable"}');
        return;
      }
      log.answered = personIds.length;
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ results: personIds.map((person_id) => ({ person_id, ...providerAnswerFor(person_id) })) }));
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const out = state as ContactProviderServer;
  out.url = `http://127.0.0.1:${port}/contacts/lookup`;
  out.close = async () => {
    for (const r of hanging) r.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return out;
}
