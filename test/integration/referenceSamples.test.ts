import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { PLACEHOLDER_SETTINGS, publicOpenApi } from '../../api/reference/publicDocument';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import type { OperationName } from '../../core/limits/limitTable';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api, type HttpResponse } from '../support/http';
import { waitForJobToFinish } from '../support/contactRetrievalJobs';
import { eventually } from '../support/eventually';
import { emitFinishedJob, startWebhookStack, type WebhookStack } from '../support/webhookStack';

/**
 * The reference shows real answers and a real event: the service runs, the test captures what
 * it answers to each operation and the `job.completed` it delivers, and every committed sample
 * of the document (api/reference/operationExamples.ts, webhookEvents.ts) must validate against
 * the document's own schema and have the captured one's shape: the same members at every depth,
 * ids of the same kind, times where there are times. Only a cancellation is not captured: a job
 * of a few people finishes before a request could catch it running (its sample is checked
 * against the route's schema by test/unit/openApiDocument.test.ts).
 */
type Doc = {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>>;
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { example: unknown }> } } }>;
};
const document = publicOpenApi(PLACEHOLDER_SETTINGS) as unknown as Doc;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(document as object, 'doc');

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The document's path and method of an operation. */
function located(operation: string): { path: string; method: string } {
  for (const [path, item] of Object.entries(document.paths))
    for (const [method, op] of Object.entries(item)) if (op.operationId === operation) return { path, method };
  throw new Error(`no operation ${operation}`);
}

function validates(schemaRef: string, value: unknown): string[] {
  const validate = ajv.getSchema(`doc#/${schemaRef}`);
  if (!validate) throw new Error(`no schema at ${schemaRef}`);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** What kind of string a value is: an id names its prefix, a time says so. */
function kind(text: string): string {
  const id = /^([a-z]+)_[0-9A-Za-z]{22}(?:_\d+)?$/.exec(text);
  if (id) return `id:${id[1]}`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(text)) return 'time';
  return 'text';
}

/** Where the committed sample's shape differs from the captured one's. */
function shapeDifferences(sample: unknown, real: unknown, at = '$'): string[] {
  if (sample === null || real === null || sample === undefined || real === undefined) return [];
  if (Array.isArray(sample) !== Array.isArray(real) || typeof sample !== typeof real)
    return [`${at}: ${JSON.stringify(sample)} against ${JSON.stringify(real)}`];
  if (Array.isArray(sample)) return sample.length && (real as unknown[]).length ? shapeDifferences(sample[0], (real as unknown[])[0], `${at}[0]`) : [];
  if (typeof sample === 'object') {
    const a = Object.keys(sample as object).sort();
    const b = Object.keys(real as object).sort();
    if (JSON.stringify(a) !== JSON.stringify(b)) return [`${at}: members ${a.join(',')} against ${b.join(',')}`];
    return a.flatMap((k) => shapeDifferences((sample as Record<string, unknown>)[k], (real as Record<string, unknown>)[k], `${at}.${k}`));
  }
  if (typeof sample === 'string' && kind(sample) !== kind(real as string))
    return [`${at}: ${sample} is ${kind(sample)}, the real ${String(real)} is ${kind(real as string)}`];
  return [];
}

const captured = new Map<OperationName, { status: number; body: unknown }>();
let stack: WebhookStack;
let tenant: TestTenant;
let n = 0;

async function call(operation: OperationName, method: string, path: string, body?: unknown, paid = false): Promise<HttpResponse> {
  const res = await api(stack.srv.url, method, path, { key: tenant.key, body, ...(paid ? { idempotencyKey: `samples-${Date.now()}-${++n}` } : {}) });
  expect({ operation, status: res.status < 300 ? 'ok' : res.text }).toEqual({ operation, status: 'ok' });
  captured.set(operation, { status: res.status, body: res.json });
  return res;
}

beforeAll(async () => {
  // Retries without delay: a refused event is dead-lettered at once, and its replay is captured too.
  stack = await startWebhookStack({ RETRY_DELAYS_MS: '0,0,0,0,0,0,0,0' });
  stack.receiver.respond((req) => (req.path === '/refusing' ? { status: 500 } : { status: 204 }));
  tenant = await createTenant({ credits: 1000 });
  await seedPeople(stack.srv.deps.stores, { purposeKeys: stack.srv.deps.purposeKeys, count: 60 });
  await call('whoami', 'GET', '/v1/whoami');
  await call('search.sources', 'GET', '/v1/search/sources');
  const search = await call(
    'candidates.search',
    'POST',
    '/v1/candidates/search',
    { filters: { seniority: ['junior', 'mid', 'senior', 'lead'] }, page_size: 5 },
    true,
  );
  const [first, second] = search.json.data as Array<{ person_id: string }>;
  const unlocked = await call('profiles.unlock', 'POST', '/v1/profiles/unlock', { person_id: first.person_id }, true);
  await call('person_matches.create', 'POST', '/v1/person-matches', { name: unlocked.json.profile.name, profile_url: unlocked.json.profile.profile_url }, true);
  const endpoint = await call('webhook_endpoints.create', 'POST', '/v1/webhook-endpoints', { url: `${stack.receiver.url}/samples` });
  const endpointId = endpoint.json.endpoint.endpoint_id as string;
  await call('webhook_endpoints.list', 'GET', '/v1/webhook-endpoints');
  await call('webhook_endpoints.get', 'GET', `/v1/webhook-endpoints/${endpointId}`);
  const job = await call(
    'contact_retrieval_jobs.create',
    'POST',
    '/v1/contact-retrieval-jobs',
    { person_ids: [first.person_id, second.person_id], fields: ['email', 'phone'] },
    true,
  );
  const jobId = job.json.job_id as string;
  await waitForJobToFinish(stack.srv.url, tenant.key, jobId);
  await call('contact_retrieval_jobs.get', 'GET', `/v1/contact-retrieval-jobs/${jobId}`);
  await call('contact_retrieval_jobs.list', 'GET', '/v1/contact-retrieval-jobs');
  await call('job_results.get', 'GET', `/v1/job-results/${jobId}`);
  await stack.receiver.waitForRequests(1, 30_000);
  // The attempt is stored once the worker has read the receiver's answer, a moment after the receiver has it.
  await eventually('the delivery to be listed', async () => {
    const listed = await api(stack.srv.url, 'GET', `/v1/webhook-deliveries?endpoint_id=${endpointId}`, { key: tenant.key });
    return listed.json.data?.length ? true : undefined;
  });
  const deliveries = await call('webhook_deliveries.list', 'GET', `/v1/webhook-deliveries?endpoint_id=${endpointId}`);
  await call('webhook_deliveries.get', 'GET', `/v1/webhook-deliveries/${deliveries.json.data[0].delivery_id}`);
  await call('webhook_endpoints.rotate_secret', 'POST', `/v1/webhook-endpoints/${endpointId}/rotate-secret`);
  await call('webhook_endpoints.update', 'PATCH', `/v1/webhook-endpoints/${endpointId}`, { url: `${stack.receiver.url}/refusing` });
  const refused = await emitFinishedJob(stack.srv, tenant, 'samples', {
    requested: 1,
    delivered: 0,
    not_found: 1,
    failed: 0,
    reused: 0,
    cancelled: 0,
    pending: 0,
  });
  const dead = await eventually('the refused event to be dead-lettered', async () => {
    const page = await api(stack.srv.url, 'GET', `/v1/webhook-deliveries?event_id=${refused.eventId}&status=dead_lettered`, { key: tenant.key });
    return page.json.data?.[0] as { delivery_id: string } | undefined;
  });
  await call('webhook_deliveries.replay', 'POST', `/v1/webhook-deliveries/${dead.delivery_id}/replays`);
  await call('webhook_endpoints.delete', 'DELETE', `/v1/webhook-endpoints/${endpointId}`);
  await call('audit_events.list', 'GET', '/v1/audit-events');
  await call('operational_limits.get', 'GET', '/v1/operational-limits?operation=candidates.search');
  await call('usage.get', 'GET', '/v1/usage');
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

test('every captured answer validates against the document, and so does its committed sample, which has its shape', () => {
  expect(captured.size).toBeGreaterThan(18);
  for (const [operation, { status, body }] of captured) {
    const { path, method } = located(operation);
    const ref = pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema');
    expect({ operation, real: validates(ref, body) }).toEqual({ operation, real: [] });
    const sample = document.paths[path][method].responses[String(status)].content!['application/json'].example;
    expect({ operation, sample: validates(ref, sample) }).toEqual({ operation, sample: [] });
    expect({ operation, differences: shapeDifferences(sample, body) }).toEqual({ operation, differences: [] });
  }
});

test('the job.completed sample validates and has the shape of the event a real job delivered', () => {
  const delivered = JSON.parse(stack.receiver.requests.find((r) => r.path === '/samples')!.body) as unknown;
  const sample = document.webhooks['job.completed'].post.requestBody.content['application/json'].example;
  expect(validates('components/schemas/JobCompletedEvent', delivered)).toEqual([]);
  expect(validates('components/schemas/JobCompletedEvent', sample)).toEqual([]);
  expect(shapeDifferences(sample, delivered)).toEqual([]);
});
