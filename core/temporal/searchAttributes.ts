import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes an operator filters on in the Temporal UI. Registered by the dev
 * server start (scripts/services.ts) and by test set-up; docker-compose registers them too.
 */
export const SA = {
  orgId: defineSearchAttributeKey('OrgId', SearchAttributeType.KEYWORD),
  workspaceId: defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD),
  jobId: defineSearchAttributeKey('JobId', SearchAttributeType.KEYWORD),
  jobStatus: defineSearchAttributeKey('JobStatus', SearchAttributeType.KEYWORD),
  endpointId: defineSearchAttributeKey('EndpointId', SearchAttributeType.KEYWORD),
  deliveryStatus: defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD),
} as const;

/** `name=Type` pairs for `temporal server start-dev --search-attribute`. */
export const SEARCH_ATTRIBUTE_FLAGS = Object.values(SA).map((k) => `${k.name}=Keyword`);
