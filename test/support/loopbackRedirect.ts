import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:http';

/**
 * A native client's loopback redirect target (RFC 8252 7.3): an http server on 127.0.0.1 and a
 * free port that records every callback URL and answers with a small page, as Claude Code or
 * VS Code do when the browser comes back with the code.
 */
export interface LoopbackRedirect {
  /** http://127.0.0.1:<port>/callback */
  redirectUri: string;
  port: number;
  /** Every callback received, in order. */
  callbacks: URL[];
  /** Callback number `index` (0-based), waiting for it if it has not arrived yet. */
  callbackAt: (index: number, opts?: { timeoutMs?: number; signal?: AbortSignal }) => Promise<URL>;
  close: () => Promise<void>;
}

export async function startLoopbackRedirect(path = '/callback'): Promise<LoopbackRedirect> {
  const callbacks: URL[] = [];
  const arrivals = new EventEmitter();
  arrivals.setMaxListeners(0);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    callbacks.push(url);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
    arrivals.emit('callback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    port,
    callbacks,
    callbackAt: async (index, opts = {}) => {
      const signals = [AbortSignal.timeout(opts.timeoutMs ?? 30_000), ...(opts.signal ? [opts.signal] : [])];
      const signal = AbortSignal.any(signals);
      while (callbacks.length <= index) {
        try {
          await once(arrivals, 'callback', { signal });
        } catch {
          throw new Error(`no redirect reached ${path} on port ${port} (waited for callback #${index + 1})`);
        }
      }
      return callbacks[index];
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
