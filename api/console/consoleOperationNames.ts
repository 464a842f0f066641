/**
 * The console's operations (its writes), a closed list as the developer API's are: each runs
 * through the operation executor under this name. They are not developer-API operations: no
 * /v1 route, no tool, no OpenAPI entry, no limit entry (docs/console.md says why).
 */
export const CONSOLE_OPERATIONS = [
  'console.keys.create',
  'console.keys.rotate',
  'console.keys.revoke',
  'console.team.invite',
  'console.team.update',
  'console.team.disable',
  'console.jobs.cancel',
] as const;

export type ConsoleOperationName = (typeof CONSOLE_OPERATIONS)[number];
