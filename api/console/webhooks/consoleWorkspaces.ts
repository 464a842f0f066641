import { notFound } from '../../../core/problems';
import type { Stores } from '../../../core/deps';
import type { ConsoleVisitor } from '../consoleVisitor';
import { choiceLabel, workspaceNamesOf } from '../tenancyNames';

/**
 * Webhooks are per workspace, and an admin runs those of every workspace of their organization:
 * the workspace a page shows is chosen (or is the one of the endpoint, delivery or event it
 * names), always one of the visitor's organization. A write then runs with the visitor's
 * principal in that workspace, so the /v1 handler it reuses finds what it acts on there.
 */
export interface WorkspaceChoice {
  id: string;
  label: string;
}

export async function workspacesOf(stores: Stores, orgId: string): Promise<WorkspaceChoice[]> {
  return (await workspaceNamesOf(stores, orgId)).map((w) => ({ id: w.id, label: choiceLabel(w) }));
}

/** The asked-for workspace when it is one of `choices`, else the visitor's own, else the first. */
export function chosenWorkspace(choices: readonly WorkspaceChoice[], asked: unknown, own: string): string {
  if (typeof asked === 'string' && choices.some((c) => c.id === asked)) return asked;
  if (choices.some((c) => c.id === own) || choices.length === 0) return own;
  return choices[0].id;
}

/** A workspace the form names: one of the organization's, or 404 like any foreign id. */
export async function requireOrgWorkspace(stores: Stores, orgId: string, workspaceId: unknown): Promise<string> {
  if (typeof workspaceId !== 'string' || !(await stores.tenancy.workspaceExistsInOrg(orgId, workspaceId))) throw notFound('workspace');
  return workspaceId;
}

async function workspaceOf(find: (orgId: string, id: string) => Promise<string | null>, what: string, orgId: string, id: string): Promise<string> {
  const workspaceId = await find(orgId, id);
  if (!workspaceId) throw notFound(what);
  return workspaceId;
}

export const endpointWorkspace = (stores: Stores, orgId: string, endpointId: string) =>
  workspaceOf(stores.webhooks.endpoints.endpointWorkspaceIn, 'webhook endpoint', orgId, endpointId);
export const deliveryWorkspace = (stores: Stores, orgId: string, deliveryId: string) =>
  workspaceOf(stores.webhooks.deliveries.deliveryWorkspaceIn, 'webhook delivery', orgId, deliveryId);

/** The visitor acting in `workspaceId` (of their organization, checked by the caller). */
export function actingIn(visitor: ConsoleVisitor, workspaceId: string): ConsoleVisitor {
  return { ...visitor, principal: { ...visitor.principal, workspaceId } };
}
