import { isDuplicateKeyError } from '../store/connection';
import { apiFields } from '../apiFields';
import { newId } from '../ids';
import { Problem, notFound } from '../problems';
import { checkDestination, REFUSAL_TEXT, type LookupAll } from '../outbound/destinationPolicy';
import type { WebhookStores } from './store/webhookStore';
import type { EndpointRecord, EndpointState } from './store/records';
import { mintSecret, ROTATION_OVERLAP_MS, rotatedSecrets, type StoredSecret } from './webhookSecrets';
import type { PurposeKeys } from '../crypto/purposeKeys';

/**
 * Webhook endpoints (SPEC 2.3, 3.1, 4.2; DECISIONS.md "Webhook endpoints"): register,
 * read, re-point, disable/enable, retire, rotate the signing secret. Scoped to the caller's
 * workspace: another workspace's endpoint is the same 404 as a missing one.
 */
export type { EndpointState };

export interface EndpointScope {
  orgId: string;
  workspaceId: string;
}

export interface DestinationSettings {
  lookupAll: LookupAll;
  allowedCidrs: readonly string[];
  /** The app's purpose keys: a new signing secret is sealed under them. */
  purposeKeys: PurposeKeys;
}

export interface EndpointView {
  endpoint_id: string;
  url: string;
  state: EndpointState;
  created_at: string;
  updated_at: string;
}

export function endpointView(doc: Pick<EndpointRecord, '_id' | 'url' | 'state' | 'createdAt' | 'updatedAt'>): EndpointView {
  return { endpoint_id: doc._id, ...apiFields(doc, ['url', 'state', 'createdAt', 'updatedAt']) };
}

async function requireAllowedDestination(url: string, settings: DestinationSettings): Promise<void> {
  const verdict = await checkDestination(url, settings.lookupAll, settings.allowedCidrs);
  if (!verdict.ok) {
    throw new Problem('webhook_url_not_allowed', REFUSAL_TEXT[verdict.reason], { extensions: { reason: verdict.reason } });
  }
}

function limitReached(): Problem {
  return new Problem('endpoint_limit_reached', 'This workspace already has an active webhook endpoint; disable or delete it first.');
}

export async function registerEndpoint(stores: WebhookStores, scope: EndpointScope, url: string, settings: DestinationSettings, now: Date) {
  // Checked before anything is written: a refused destination persists nothing.
  await requireAllowedDestination(url, settings);
  if (await stores.webhooks.endpoints.hasActiveEndpoint(scope.workspaceId)) throw limitReached();
  const endpointId = newId('we');
  const { stored, plaintext } = mintSecret(settings.purposeKeys, endpointId, now);
  try {
    const doc = await stores.webhooks.endpoints.insertEndpoint({
      _id: endpointId,
      orgId: scope.orgId,
      workspaceId: scope.workspaceId,
      url,
      state: 'active',
      activeSlot: scope.workspaceId,
      secrets: [stored],
    });
    return { endpoint: endpointView(doc), secret_id: stored.secretId, secret: plaintext };
  } catch (err) {
    // The unique active slot makes concurrent registrations race-free: one wins, the rest 409.
    if (isDuplicateKeyError(err)) throw limitReached();
    throw err;
  }
}

export async function findEndpoint(stores: WebhookStores, scope: EndpointScope, endpointId: string): Promise<EndpointRecord> {
  const doc = await stores.webhooks.endpoints.endpointInWorkspace(scope.workspaceId, endpointId);
  if (!doc) throw notFound('webhook endpoint');
  return doc;
}

export async function listEndpoints(stores: WebhookStores, scope: EndpointScope, page: { limit: number; after?: { createdAt: Date; id: string } }) {
  const { records, more } = await stores.webhooks.endpoints.endpointsPage(scope.workspaceId, page.limit, page.after);
  return { docs: records, more };
}

export interface EndpointChange {
  url?: string;
  state?: 'active' | 'disabled';
}

export async function updateEndpoint(
  stores: WebhookStores,
  scope: EndpointScope,
  endpointId: string,
  change: EndpointChange,
  settings: DestinationSettings,
): Promise<EndpointView> {
  const doc = await findEndpoint(stores, scope, endpointId);
  if (doc.state === 'retired') throw new Problem('endpoint_retired', 'A retired webhook endpoint cannot be changed.');
  // A re-point is checked like a registration: the new destination must pass the policy.
  if (change.url !== undefined && change.url !== doc.url) await requireAllowedDestination(change.url, settings);
  const set: Parameters<WebhookStores['webhooks']['endpoints']['updateEndpointUnlessRetired']>[2] = {};
  if (change.url !== undefined) set.url = change.url;
  if (change.state !== undefined) {
    set.state = change.state;
    set.activeSlot = change.state === 'active' ? scope.workspaceId : endpointId;
  }
  try {
    const updated = await stores.webhooks.endpoints.updateEndpointUnlessRetired(scope.workspaceId, endpointId, set);
    if (!updated) throw new Problem('endpoint_retired', 'A retired webhook endpoint cannot be changed.');
    return endpointView(updated);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw limitReached();
    throw err;
  }
}

/** DELETE: retire, keep the record and its deliveries readable; retiring twice is harmless. */
export async function retireEndpoint(stores: WebhookStores, scope: EndpointScope, endpointId: string, now: Date): Promise<EndpointView> {
  await findEndpoint(stores, scope, endpointId);
  await stores.webhooks.endpoints.markEndpointRetired(scope.workspaceId, endpointId, now);
  return endpointView(await findEndpoint(stores, scope, endpointId));
}

/**
 * SPEC 6.3: a successor secret, returned once; the predecessor signs for exactly 24 h; at
 * most two live secrets, so a rotation inside the window is refused. The write is
 * conditional on the window the read saw, so two concurrent rotations cannot both win.
 */
/** The workspace's active endpoint at this moment, if any (emission picks it). */
export async function activeEndpointOf(stores: WebhookStores, workspaceId: string): Promise<EndpointRecord | null> {
  return stores.webhooks.endpoints.activeEndpointOf(workspaceId);
}

export async function rotateSecret(stores: WebhookStores, scope: EndpointScope, endpointId: string, keys: PurposeKeys, now: Date) {
  const doc = await findEndpoint(stores, scope, endpointId);
  if (doc.state === 'retired') throw new Problem('endpoint_retired', 'A retired webhook endpoint has no secret to rotate.');
  const inWindow = () =>
    new Problem('rotation_in_progress', 'The previous secret is still inside its 24-hour overlap; rotate again after it ends.', {
      extensions: { previous_secret_expires_at: doc.rotationEndsAt?.toISOString() },
    });
  if (doc.rotationEndsAt && doc.rotationEndsAt.getTime() > now.getTime()) throw inWindow();
  const { stored, plaintext } = mintSecret(keys, endpointId, now);
  const secrets = rotatedSecrets(doc.secrets as StoredSecret[], stored, now);
  const windowEnd = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  if (!(await stores.webhooks.endpoints.replaceSecrets(scope.workspaceId, endpointId, doc.rotationEndsAt ?? null, secrets, windowEnd))) {
    const fresh = await findEndpoint(stores, scope, endpointId);
    if (fresh.state === 'retired') throw new Problem('endpoint_retired', 'A retired webhook endpoint has no secret to rotate.');
    throw new Problem('rotation_in_progress', 'Another rotation of this secret has just happened; rotate again after its 24-hour overlap.');
  }
  return { secret_id: stored.secretId, secret: plaintext, previous_secret_expires_at: windowEnd.toISOString() };
}
