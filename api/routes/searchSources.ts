import { z } from 'zod';
import { PERMISSIONS } from '../../core/keys/permissions';
import { sourcesForOrganization } from '../../core/talent/sources';
import { defineRoute } from '../routeSpec';

export const SearchSourceSchema = z.object({
  source_id: z.string().describe('pass it in `sources` of a candidate search'),
  name: z.string(),
  description: z.string(),
  covers: z.array(z.string()).describe("what the source's profiles carry"),
  built_in: z.boolean().describe('built-in sources are open to every organization; others are enabled by the operator'),
});

export const searchSourceRoutes = [
  defineRoute({
    operation: 'search.sources',
    method: 'GET',
    path: '/v1/search/sources',
    tag: 'Candidate search',
    summary: 'List the search sources this key can use',
    description:
      'Free; takes no Idempotency-Key. The built-in talent pool is always listed; other sources appear once the operator enabled them for the organization.',
    permission: PERMISSIONS.candidatesSearch,
    responses: { 200: { description: 'The usable sources', schema: z.object({ data: z.array(SearchSourceSchema) }) } },
    handler: async ({ principal, config, deps }) => ({
      status: 200,
      body: {
        data: (await sourcesForOrganization(config, deps.enabledSources, principal.orgId)).map((s) => ({
          source_id: s.id,
          name: s.name,
          description: s.description,
          covers: s.covers,
          built_in: s.built_in,
        })),
      },
    }),
  }),
];
