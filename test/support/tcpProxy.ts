import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  /** host:port to connect to instead of the target. */
  address: string;
  /** The target is gone, as when its process dies: open connections are closed and new ones refused. */
  down: () => Promise<void>;
  /** The target is back on the same address. */
  up: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * A TCP proxy on a loopback port in front of `target` (host:port) that a test takes down and
 * brings back: an outage of a server the test shares with other files (the test Temporal
 * server), seen by the clients as a dead server (connections closed, then refused).
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = target.split(':');
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (onPort: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(onPort, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const ownPort = (server.address() as AddressInfo).port;
  const down = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Closed, not reset: the system closes a killed process's connections, and gRPC clients
    // wait out a reconnect back-off after a reset that they do not after a close.
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    address: `127.0.0.1:${ownPort}`,
    down,
    up: () => listen(ownPort),
    close: () => (server.listening ? down() : Promise.resolve()),
  };
}
