import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics an operator can alert on: each process counts what it does. The API serves
 * its registry at GET /metrics; the worker (jobs, webhook deliveries, the credits jobs charge)
 * at GET /metrics on WORKER_METRICS_PORT.
 */
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

export const jobsStarted = new Counter({
  name: 'contact_jobs_started_total',
  help: 'Contact-retrieval jobs a worker began working on',
  registers: [metricsRegistry],
});

export const jobsFinished = new Counter({
  name: 'contact_jobs_finished_total',
  help: 'Contact-retrieval jobs finished, by final status (completed, partial, failed, cancelled, expired)',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

export const webhookAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded, failed, dead_lettered) and error code (empty on success)',
  labelNames: ['outcome', 'error_code'] as const,
  registers: [metricsRegistry],
});

export const webhookAttemptDuration = new Histogram({
  name: 'webhook_delivery_attempt_duration_seconds',
  help: 'Duration of webhook delivery attempts that reached the network, by outcome',
  labelNames: ['outcome'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  registers: [metricsRegistry],
});

export const webhookDeadLetters = new Counter({
  name: 'webhook_dead_letters_total',
  help: 'Webhook events dead-lettered after their last attempt failed',
  registers: [metricsRegistry],
});
