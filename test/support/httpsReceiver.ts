import { writeFileSync, mkdtempSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loopbackCertificate } from '../../scripts/loopbackCertificate';

/**
 * A real HTTPS webhook receiver on loopback for tests and the benchmark: a self-signed
 * certificate (written to a file for WEBHOOK_EXTRA_CA_FILE) valid for 127.0.0.1, ::1,
 * `localhost` and `receiver.test`; every request is recorded with its raw body; the reply is
 * programmable; `down()` closes the port and `up()` opens it again on the same number.
 */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** `delayMs`: the answer comes that long after the request (a slow receiver). */
export type Reply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';
export type Responder = (req: ReceivedRequest, index: number) => Reply;

export interface HttpsReceiver {
  port: number;
  /** https://127.0.0.1:<port> */
  url: string;
  caFile: string;
  certPem: string;
  requests: ReceivedRequest[];
  respond: (responder: Responder) => void;
  down: () => Promise<void>;
  up: () => Promise<void>;
  waitForRequests: (count: number, timeoutMs?: number) => Promise<ReceivedRequest[]>;
  onRequest?: (req: ReceivedRequest) => void;
  close: () => Promise<void>;
}

export const RECEIVER_HOST_NAME = 'receiver.test';

let cached: Promise<{ cert: string; key: string; caFile: string }> | undefined;

export function receiverCertificate(): Promise<{ cert: string; key: string; caFile: string }> {
  cached ??= (async () => {
    const pems = await loopbackCertificate({ hostNames: [RECEIVER_HOST_NAME], validDays: 30 });
    const caFile = join(mkdtempSync(join(tmpdir(), 'receiver-ca-')), 'ca.pem');
    writeFileSync(caFile, pems.cert);
    return { cert: pems.cert, key: pems.key, caFile };
  })();
  return cached;
}

export async function startHttpsReceiver(opts: { port?: number } = {}): Promise<HttpsReceiver> {
  const { cert, key, caFile } = await receiverCertificate();
  let responder: Responder = () => ({ status: 200, body: 'ok' });
  const requests: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = opts.port ?? 0;

  const receiver: HttpsReceiver = {
    port,
    url: '',
    caFile,
    certPem: cert,
    requests,
    respond: (r) => {
      responder = r;
    },
    down: async () => {
      const s = server;
      server = undefined;
      if (!s) return;
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    up: async () => {
      if (server) return;
      const s = createServer({ cert, key }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const rec: ReceivedRequest = {
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            at: Date.now(),
          };
          const index = requests.push(rec) - 1;
          receiver.onRequest?.(rec);
          for (const w of waiters.splice(0)) w();
          const reply = responder(rec, index);
          if (reply === 'hang') return;
          const answer = () => {
            if (res.destroyed) return;
            res.writeHead(reply.status, reply.headers ?? {});
            res.end(reply.body ?? '');
          };
          if (reply.delayMs) setTimeout(answer, reply.delayMs);
          else answer();
        });
      });
      s.on('connection', (sock: Socket) => {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
      });
      s.on('secureConnection', (sock: Socket) => {
        sockets.add(sock);
        sock.on('close', () => sockets.delete(sock));
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
      const addr = s.address();
      port = typeof addr === 'object' && addr ? addr.port : port;
      receiver.port = port;
      receiver.url = `https://127.0.0.1:${port}`;
      server = s;
    },
    waitForRequests: async (count, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 250));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return requests.slice(0, count);
    },
    close: async () => receiver.down(),
  };
  await receiver.up();
  return receiver;
}
