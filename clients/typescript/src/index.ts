export { createTalentClient, JobWaitTimeout, parseRateLimitHeader, ProblemError, responseMeta } from './client';
export type {
  JobCompletedEvent,
  ListItem,
  ListPath,
  PaidCallOptions,
  Problem,
  ProblemCode,
  ResponseMeta,
  TalentClient,
  TalentClientOptions,
  WaitForJobOptions,
  WithMeta,
} from './client';
export type { components, operations, paths, webhooks } from './schema';
