import { z } from 'zod';
import { renameOrganization, type OrganizationRename } from '../../../core/tenancy/organizationName';
import { defineConsoleOperation } from '../consoleOperation';
import { CONSOLE_PATHS } from '../consolePaths';

/**
 * Settings' writes (DECISIONS.md "Accounts, settings…"): "Save name" renames the organization
 * (core/tenancy/organizationName.ts), audited `organization.updated` with the name before and after.
 */
const rename = defineConsoleOperation({
  operation: 'console.settings.rename',
  path: `${CONSOLE_PATHS.settings}/name`,
  summary: 'Rename the organization',
  body: z.object({ name: z.string().max(1000) }).strict(),
  handler: async ({ principal, body, deps }) => ({ status: 200, body: await renameOrganization(deps.stores, principal.orgId, body.name) }),
  audit: {
    change: ({ principal }, result) => {
      const renamed = result.body as OrganizationRename;
      return { action: 'organization.updated', target: principal.orgId, before: { name: renamed.name_before }, after: { name: renamed.name } };
    },
  },
});

export const settingsOperations = [rename];
