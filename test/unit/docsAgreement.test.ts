import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_CLIENT_CREDENTIALS_SNIPPET } from '../../api/reference/firstCallGuide';
import { PLACEHOLDER_SETTINGS, publicOpenApi } from '../../api/reference/publicDocument';
import { WEBHOOK_RULES } from '../../api/reference/webhookRules';
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_REQUESTS_PER_SECOND, OPERATION_REQUESTS_PER_SECOND, type OperationName } from '../../core/limits/limitTable';

/**
 * Where the reference and the guides state the same rule, they state it in the same words:
 * endpoints per workspace, the retry schedule, an attempt's time limit and the replay limit
 * (api/reference/webhookRules.ts, made from the code's constants), and the MCP SDK snippet.
 */
const root = join(__dirname, '..', '..');
const guide = (name: string) => readFileSync(join(root, 'docs', name), 'utf8').replace(/\s+/g, ' ');
const document = publicOpenApi(PLACEHOLDER_SETTINGS) as { info: { description: string }; webhooks: Record<string, { post: { description: string } }> };
type PathItem = Record<string, { operationId: string; description: string }>;
const limitsDescription = (document as unknown as { paths: Record<string, PathItem> }).paths['/v1/operational-limits'].get.description;

/** How docs/limits.md names the operations with a rate of their own. */
const LIMITS_GUIDE_NAMES: Record<string, OperationName[]> = {
  'job create': ['contact_retrieval_jobs.create'],
  'batch create': ['contact_retrieval_jobs.batch_create'],
  'job get': ['contact_retrieval_jobs.get'],
  'job list': ['contact_retrieval_jobs.list'],
  cancel: ['contact_retrieval_jobs.cancel'],
  'job results': ['job_results.get'],
  'webhook endpoint create/update/delete': ['webhook_endpoints.create', 'webhook_endpoints.update', 'webhook_endpoints.delete'],
  'rotate-secret': ['webhook_endpoints.rotate_secret'],
  'webhook reads': ['webhook_endpoints.list', 'webhook_endpoints.get', 'webhook_deliveries.list', 'webhook_deliveries.get'],
  replay: ['webhook_deliveries.replay'],
  'audit log': ['audit_events.list'],
  usage: ['usage.get'],
};

const eventDescription = document.webhooks['job.completed'].post.description;

describe('the reference and the guides agree', () => {
  test.each(Object.entries(WEBHOOK_RULES))('the webhook rule on %s reads the same in the reference and in docs/webhooks.md', (_, rule) => {
    expect(eventDescription).toContain(rule);
    expect(guide('webhooks.md')).toContain(rule);
  });

  test('the limits: the baseline and every operation rate read the same in the reference and in docs/limits.md', () => {
    const limits = guide('limits.md');
    expect(limits).toContain(`held to ${DEFAULT_REQUESTS_PER_SECOND} per second per organization`);
    expect(limits).toContain(`and ${DEFAULT_MAX_CONCURRENCY} in flight`);
    expect(limitsDescription).toContain(`Defaults: ${DEFAULT_REQUESTS_PER_SECOND} requests per second per organization`);
    expect(limitsDescription).toContain(`${DEFAULT_MAX_CONCURRENCY} requests in flight`);
    const stated: Partial<Record<OperationName, number>> = {};
    for (const [words, operations] of Object.entries(LIMITS_GUIDE_NAMES)) {
      const rate = new RegExp(`[(,:] ?${words.replace(/[/-]/g, '\\$&')} (\\d+)`).exec(limits)?.[1];
      for (const operation of operations) stated[operation] = rate === undefined ? undefined : Number(rate);
    }
    expect(stated).toEqual(OPERATION_REQUESTS_PER_SECOND);
    for (const [operation, rate] of Object.entries(OPERATION_REQUESTS_PER_SECOND)) expect(limitsDescription).toContain(`| \`${operation}\` | ${rate} |`);
  });

  test('nothing says an event goes to several endpoints', () => {
    for (const text of [eventDescription, document.info.description, guide('webhooks.md'), guide('api-reference.md')])
      expect(text).not.toMatch(/every active endpoint|all active endpoints|endpoints of the organization/i);
  });

  test('the MCP SDK snippet for client credentials is the same in the reference and in docs/oauth-and-tool-server.md', () => {
    expect(document.info.description).toContain(MCP_CLIENT_CREDENTIALS_SNIPPET);
    // The guide indents it as a step of a list.
    const unindented = (text: string) => text.replace(/^ +/gm, '');
    expect(unindented(readFileSync(join(root, 'docs', 'oauth-and-tool-server.md'), 'utf8'))).toContain(unindented(MCP_CLIENT_CREDENTIALS_SNIPPET));
  });

  test('the guides put the integrator first: no benchmark figures or Temporal internals in them', () => {
    for (const name of ['webhooks.md', 'oauth-and-tool-server.md']) {
      const text = guide(name);
      expect({ name, benchmarks: /\bp50\b|\bp95\b|load average|CPU per|ceiling/i.test(text) }).toEqual({ name, benchmarks: false });
      expect({ name, internals: /local activit|workflow-task slot|eager start/i.test(text) }).toEqual({ name, internals: false });
    }
    expect(guide('webhooks.md').indexOf('## Receive events: the steps')).toBeLessThan(guide('webhooks.md').indexOf('## The rules'));
  });
});
