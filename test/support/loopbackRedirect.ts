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
  callbacks: URL[];
  /** The first callback not handed out yet (waits for it). */
  nextCallback: (timeoutMs?: number) => Promise<URL>;
  close: () => Promise<void>;
}

export async function startLoopbackRedirect(path = '/callback'): Promise<LoopbackRedirect> {
  const callbacks: URL[] = [];
  const waiters: Array<(u: URL) => void> = [];
  let consumed = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    callbacks.push(url);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
    const w = waiters.shift();
    if (w) {
      consumed += 1;
      w(url);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    redirectUri: `http://127.0.0.1:${port}${path}`,
    port,
    callbacks,
    nextCallback: (timeoutMs = 30_000) => {
      if (consumed < callbacks.length) return Promise.resolve(callbacks[consumed++]);
      return new Promise<URL>((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiters.indexOf(done);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`no redirect reached ${path} on port ${port} within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = (u: URL) => {
          clearTimeout(timer);
          resolve(u);
        };
        waiters.push(done);
      });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
