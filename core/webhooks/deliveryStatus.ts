/** What a delivery record's `status` may say (DECISIONS.md "Webhook deliveries"). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dead_lettered'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
