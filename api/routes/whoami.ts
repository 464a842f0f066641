import { z } from 'zod';
import { defineRoute } from '../routeSpec';

export const WhoamiResponse = z.object({
  workspace_id: z.string(),
  org_root: z.string(),
  application_id: z.string(),
  audience: z.string(),
  scopes: z.array(z.string()).describe('the exact permissions the key carries'),
  key_id: z.string(),
});

export const whoamiRoutes = [
  defineRoute({
    operation: 'whoami',
    method: 'GET',
    path: '/v1/whoami',
    tag: 'Identity',
    summary: 'Describe the calling API key',
    description: 'Needs no permission beyond a valid key; never charged.',
    responses: { 200: { description: 'The key and what it may do', schema: WhoamiResponse } },
    handler: async ({ principal }) => ({
      status: 200,
      body: {
        workspace_id: principal.workspaceId,
        org_root: principal.orgId,
        application_id: principal.applicationId,
        audience: principal.audience,
        scopes: [...principal.scopes].sort(),
        key_id: principal.keyId,
      },
    }),
  }),
];
