import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_CLIENT_CREDENTIALS_SNIPPET } from '../../api/reference/firstCallGuide';
import { PLACEHOLDER_SETTINGS, publicOpenApi } from '../../api/reference/publicDocument';
import { WEBHOOK_RULES } from '../../api/reference/webhookRules';

/**
 * Where the reference and the guides state the same rule, they state it in the same words:
 * endpoints per workspace, the retry schedule, an attempt's time limit and the replay limit
 * (api/reference/webhookRules.ts, made from the code's constants), and the MCP SDK snippet.
 */
const root = join(__dirname, '..', '..');
const guide = (name: string) => readFileSync(join(root, 'docs', name), 'utf8').replace(/\s+/g, ' ');
const document = publicOpenApi(PLACEHOLDER_SETTINGS) as { info: { description: string }; webhooks: Record<string, { post: { description: string } }> };
const eventDescription = document.webhooks['job.completed'].post.description;

describe('the reference and the guides agree', () => {
  test.each(Object.entries(WEBHOOK_RULES))('the webhook rule on %s reads the same in the reference and in docs/webhooks.md', (_, rule) => {
    expect(eventDescription).toContain(rule);
    expect(guide('webhooks.md')).toContain(rule);
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
