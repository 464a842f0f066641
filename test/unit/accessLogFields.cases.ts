import { toolLogFieldsOf } from '../../api/mcp/toolCall';
import { pathIds } from '../../api/middleware/accessLog';

describe('the ids an access line carries from its path', () => {
  test.each([
    ['/v1/contact-retrieval-jobs/:id', '/v1/contact-retrieval-jobs/job_1', { job_id: 'job_1' }],
    ['/v1/contact-retrieval-jobs/:id/cancel', '/v1/contact-retrieval-jobs/job_2/cancel', { job_id: 'job_2' }],
    ['/v1/job-results/:job_id', '/v1/job-results/job_3/', { job_id: 'job_3' }],
    ['/v1/webhook-deliveries/:id/replays', '/v1/webhook-deliveries/dlv_1/replays', { delivery_id: 'dlv_1' }],
    ['/v1/webhook-endpoints/:id/rotate-secret', '/v1/webhook-endpoints/we_1/rotate-secret', { endpoint_id: 'we_1' }],
    ['/console/jobs/:job_id/cancel', '/console/jobs/job%204/cancel', { job_id: 'job 4' }],
    ['/console/keys/:key_id/revoke', '/console/keys/key_1/revoke', {}],
    ['/v1/whoami', '/v1/whoami', {}],
    ['unmatched', '/v1/contact-retrieval-jobs/job_1/x', {}],
  ])('%s (%s)', (route, path, ids) => {
    expect(pathIds(route, path)).toEqual(ids);
  });
});

describe('the MCP fields of a /tools line', () => {
  test('a tool call names its tool; other methods only the method; anything else nothing', () => {
    expect(toolLogFieldsOf({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'unlock_profile', arguments: {} } })).toEqual({
      mcp_method: 'tools/call',
      tool: 'unlock_profile',
    });
    expect(toolLogFieldsOf({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual({ mcp_method: 'tools/list' });
    expect(toolLogFieldsOf([{ method: 'tools/call' }])).toEqual({});
    expect(toolLogFieldsOf(null)).toEqual({});
  });
});
