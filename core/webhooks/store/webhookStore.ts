import type { Connection } from 'mongoose';
import { webhookModels } from '../models';
import { createDeliveryStore } from './deliveryStore';
import { createEndpointStore } from './endpointStore';
import { createEventStore } from './eventStore';
import { createReplaySlotStore } from './replaySlotStore';

/**
 * The webhook area's store on the root's connection (core/deps.ts `createStores`): endpoints,
 * events, delivery records (with their claims, numbers and health counters) and replay slots,
 * each a store of its own over the models bound once here.
 */
export function createWebhookStore(connection: Connection) {
  const models = webhookModels(connection);
  return {
    endpoints: createEndpointStore(models),
    events: createEventStore(models),
    deliveries: createDeliveryStore(models),
    replaySlots: createReplaySlotStore(models),
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;

/** What the webhook area's functions take first: the app's stores (`deps.stores`), of which they read the webhooks'. */
export interface WebhookStores {
  readonly webhooks: WebhookStore;
}
