import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../core/config';
import { constantTimeEqual } from '../core/crypto/hash';
import { metricsRegistry } from '../core/observability/metrics';

const BEARER = /^Bearer (\S+)$/i;

/**
 * The worker's Prometheus endpoint: GET /metrics on HOST:WORKER_METRICS_PORT, behind
 * METRICS_TOKEN when one is set (as the API's). Its series are what the worker counts: jobs
 * started and finished by status, webhook attempts by outcome and their duration, dead
 * letters, and the credits jobs charge, besides the process's own.
 */
export async function startMetricsServer(
  config: Pick<Config, 'host' | 'metricsToken'> & { worker: Pick<Config['worker'], 'metricsPort'> },
  port = config.worker.metricsPort,
): Promise<{ server: Server; port: number; close: () => Promise<void> }> {
  const token = config.metricsToken;
  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: GET /metrics\n');
        return;
      }
      const presented = BEARER.exec(req.headers.authorization ?? '')?.[1];
      if (token && (!presented || !constantTimeEqual(presented, token))) {
        res
          .writeHead(401, { 'WWW-Authenticate': 'Bearer realm="metrics"', 'Content-Type': 'text/plain' })
          .end('metrics need Authorization: Bearer <METRICS_TOKEN>\n');
        return;
      }
      const body = await metricsRegistry.metrics();
      res.writeHead(200, { 'Content-Type': metricsRegistry.contentType, 'Cache-Control': 'no-store' }).end(body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
