import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics an operator can alert on; served at GET /metrics by the API. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by route template, method, status and problem code',
  labelNames: ['route', 'method', 'status', 'code'] as const,
  registers: [metricsRegistry],
});

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route template and method',
  labelNames: ['route', 'method'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

export const creditsCharged = new Counter({
  name: 'credits_charged_total',
  help: 'Credits charged, by operation',
  labelNames: ['operation'] as const,
  registers: [metricsRegistry],
});

export const admissionRefusals = new Counter({
  name: 'admission_refusals_total',
  help: '429 refusals by problem code',
  labelNames: ['code'] as const,
  registers: [metricsRegistry],
});
