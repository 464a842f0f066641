import { typedCollection } from '../../store/typedCollection';
import type { WebhookModels } from '../models';
import type { EndpointRecord, SigningSecretRecord } from './records';

/** Webhook endpoints as stored (core/webhooks/webhookEndpoints.ts holds the rules). */

/** EndpointStore on the root's models (built by core/webhooks/store/webhookStore.ts). */
export function createEndpointStore(models: WebhookModels) {
  async function hasActiveEndpoint(workspaceId: string): Promise<boolean> {
    return Boolean(await models.endpoints.exists({ activeSlot: workspaceId }));
  }

  /** Inserts a new endpoint; a second active one in its workspace fails on the unique active slot (a duplicate-key error). */
  async function insertEndpoint(
    endpoint: Pick<EndpointRecord, '_id' | 'orgId' | 'workspaceId' | 'url' | 'state' | 'activeSlot' | 'secrets'>,
  ): Promise<EndpointRecord> {
    const doc = await models.endpoints.create(endpoint);
    return doc.toObject<EndpointRecord>();
  }

  async function endpointInWorkspace(workspaceId: string, endpointId: string): Promise<EndpointRecord | null> {
    return models.endpoints.findOne({ _id: endpointId, workspaceId }).lean<EndpointRecord>();
  }

  /** The workspace of an endpoint of `orgId`, or null. */
  async function endpointWorkspaceIn(orgId: string, endpointId: string): Promise<string | null> {
    const doc = await models.endpoints.findOne({ _id: endpointId, orgId }, { workspaceId: 1 }).lean<{ workspaceId: string }>();
    return doc?.workspaceId ?? null;
  }

  /** A page of the workspace's endpoints, newest first, strictly after `after`. */
  async function endpointsPage(
    workspaceId: string,
    limit: number,
    after?: { createdAt: Date; id: string },
  ): Promise<{ records: EndpointRecord[]; more: boolean }> {
    const filter: Record<string, unknown> = { workspaceId };
    if (after) filter.$or = [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after.id } }];
    const docs = await models.endpoints
      .find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .limit(limit + 1)
      .lean<EndpointRecord[]>();
    return { records: docs.slice(0, limit), more: docs.length > limit };
  }

  /** Sets fields of an endpoint that is not retired; null when it is (or is gone). A second active endpoint fails on the active slot. */
  async function updateEndpointUnlessRetired(
    workspaceId: string,
    endpointId: string,
    set: Partial<Pick<EndpointRecord, 'url' | 'state' | 'activeSlot'>>,
  ): Promise<EndpointRecord | null> {
    return models.endpoints
      .findOneAndUpdate({ _id: endpointId, workspaceId, state: { $ne: 'retired' } }, { $set: set }, { returnDocument: 'after' })
      .lean<EndpointRecord>();
  }

  async function markEndpointRetired(workspaceId: string, endpointId: string, now: Date): Promise<void> {
    await models.endpoints.updateOne(
      { _id: endpointId, workspaceId, state: { $ne: 'retired' } },
      { $set: { state: 'retired', activeSlot: endpointId, retiredAt: now } },
    );
  }

  /** Replaces the secrets if the rotation window is still the one the caller read; false when another write came first. */
  async function replaceSecrets(
    workspaceId: string,
    endpointId: string,
    seenRotationEndsAt: Date | null,
    secrets: SigningSecretRecord[],
    rotationEndsAt: Date,
  ): Promise<boolean> {
    const res = await models.endpoints.updateOne(
      { _id: endpointId, workspaceId, state: { $ne: 'retired' }, rotationEndsAt: seenRotationEndsAt },
      { $set: { secrets, rotationEndsAt } },
    );
    return res.matchedCount > 0;
  }

  /** The workspace's active endpoint at this moment, if any (emission picks it). */
  async function activeEndpointOf(workspaceId: string): Promise<EndpointRecord | null> {
    return models.endpoints.findOne({ activeSlot: workspaceId }).lean<EndpointRecord>();
  }

  async function endpointById(endpointId: string): Promise<EndpointRecord | null> {
    return models.endpoints.findById(endpointId).lean<EndpointRecord>();
  }

  /** Points the endpoint back at `previousUrl` if it still points at `url` (the dev listener's restore). */
  async function restoreEndpointUrl(endpointId: string, url: string, previousUrl: string): Promise<void> {
    await models.endpoints.updateOne({ _id: endpointId, url }, { $set: { url: previousUrl } });
  }

  /** Every endpoint of the workspace, retired ones too, oldest first (a test's or a drill's check). */
  async function endpointsOfWorkspace(workspaceId: string): Promise<EndpointRecord[]> {
    return models.endpoints.find({ workspaceId }).sort({ createdAt: 1, _id: 1 }).lean<EndpointRecord[]>();
  }

  /** Every endpoint of the organization, by id (a test's or a drill's check). */
  async function endpointsOfOrganization(orgId: string): Promise<EndpointRecord[]> {
    return models.endpoints.find({ orgId }).sort({ _id: 1 }).lean<EndpointRecord[]>();
  }

  /** An endpoint written as it is (a benchmark's set-up). */
  async function insertEndpointRecord(record: EndpointRecord): Promise<void> {
    await typedCollection<EndpointRecord>(models.endpoints).insertOne(record);
  }

  return {
    hasActiveEndpoint,
    insertEndpoint,
    endpointInWorkspace,
    endpointWorkspaceIn,
    endpointsPage,
    updateEndpointUnlessRetired,
    markEndpointRetired,
    replaceSecrets,
    activeEndpointOf,
    endpointById,
    restoreEndpointUrl,
    endpointsOfWorkspace,
    endpointsOfOrganization,
    insertEndpointRecord,
  };
}
