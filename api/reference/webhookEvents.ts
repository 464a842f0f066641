import { COUNT_KEYS, FINAL_JOB_STATUSES } from '../../core/jobs/jobTypes';
import { objectSchema } from './objectSchema';
import { WEBHOOK_RULES } from './webhookRules';

/**
 * The events the service POSTs to customers' endpoints, as an OpenAPI 3.1 `webhooks` section,
 * so receivers can generate types for them too. The body is the envelope of
 * core/webhooks/eventEnvelope.ts; the headers are Standard Webhooks' (core/webhooks/signPayload.ts).
 */
const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

export const JOB_COMPLETED_EVENT_SCHEMA = {
  ...objectSchema(['type', 'id', 'timestamp', 'data'], {
    type: { const: 'job.completed' },
    id: { type: 'string', description: 'The event id; equals the `webhook-id` header. Deduplicate on it: retries and replays carry the same id.' },
    timestamp: { type: 'string', format: 'date-time', description: 'When the event was first emitted' },
    data: objectSchema(['job_id', 'type', 'status', 'counts', 'result_url'], {
      job_id: { type: 'string' },
      type: { const: 'contact_retrieval' },
      status: { enum: [...FINAL_JOB_STATUSES] },
      counts: {
        ...objectSchema([...COUNT_KEYS], Object.fromEntries(COUNT_KEYS.map((k) => [k, { type: 'integer', minimum: 0 }]))),
        description: 'requested = delivered + not_found + failed + reused + cancelled + pending, always',
      },
      result_url: { type: 'string', description: 'Relative path of the result (`GET /v1/job-results/{job_id}`); call it with your own key' },
      result_expires_at: { type: 'string', format: 'date-time', description: 'Present when the job carries a result' },
    }),
  }),
  description: 'No personal data: ids and counts only. Read the contacts from `result_url`.',
};

/**
 * A `job.completed` body as the service sends it (its shape is checked against one captured from
 * a real delivery by test/integration/referenceSamples.test.ts).
 */
export const JOB_COMPLETED_EXAMPLE = {
  type: 'job.completed',
  id: 'evt_6Rq9Xm3Kt8Wb2Nv5Lc4YdH',
  timestamp: '2026-11-25T14:03:19.912Z',
  data: {
    job_id: 'job_8Kd3Rm7Xq2Wt9Bn4Lv6YcP',
    type: 'contact_retrieval',
    status: 'completed',
    counts: { requested: 2, delivered: 1, not_found: 1, failed: 0, reused: 0, cancelled: 0, pending: 0 },
    result_url: '/v1/job-results/job_8Kd3Rm7Xq2Wt9Bn4Lv6YcP',
    result_expires_at: '2026-12-02T14:03:19.907Z',
  },
};

export function webhookEvents(): Record<string, unknown> {
  return {
    'job.completed': {
      post: {
        operationId: 'jobCompletedEvent',
        summary: 'job.completed: a contact-retrieval job finished',
        description: [
          WEBHOOK_RULES.endpoints,
          "Signed per Standard Webhooks: verify `webhook-signature` over `{webhook-id}.{webhook-timestamp}.{raw body}` with your endpoint's `whsec_` secret (any space-separated candidate may match while a secret rotation is open),",
          'refuse timestamps more than 5 minutes away, deduplicate on `webhook-id` and do the work after answering.',
          WEBHOOK_RULES.attemptTime,
          WEBHOOK_RULES.retries,
          WEBHOOK_RULES.replays,
          'See `GET /v1/webhook-deliveries`.',
        ].join(' '),
        tags: ['Webhook events'],
        security: [],
        parameters: [
          header('webhook-id', 'The event id (`evt_…`), the same on every attempt and replay', JOB_COMPLETED_EXAMPLE.id),
          header('webhook-timestamp', 'Unix seconds of this attempt', String(Math.floor(Date.parse(JOB_COMPLETED_EXAMPLE.timestamp) / 1000))),
          header(
            'webhook-signature',
            'Space-separated `v1,<base64 HMAC-SHA256>` candidates, one per live secret',
            'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          ),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/JobCompletedEvent' }, example: JOB_COMPLETED_EXAMPLE } },
        },
        responses: {
          '2XX': { description: 'Received: the delivery succeeded and is not retried' },
          '4XX': { description: 'Refused (e.g. a signature that does not verify): retried on the schedule until it gives up' },
          '5XX': { description: 'Receiver failure: retried on the schedule until it gives up' },
        },
      },
    },
  };
}
