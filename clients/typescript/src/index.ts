export { createTalentClient, ProblemError } from './client';
export type { JobCompletedEvent, ListItem, ListPath, PaidCallOptions, Problem, ProblemCode, TalentClient, TalentClientOptions } from './client';
export type { components, operations, paths, webhooks } from './schema';
