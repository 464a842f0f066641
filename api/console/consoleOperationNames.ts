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
  'console.team.resend_invitation',
  'console.team.cancel_invitation',
  'console.team.update',
  'console.team.disable',
  'console.limits.set_cap',
  'console.limits.block',
  'console.limits.clear',
  'console.budgets.set',
  'console.budgets.remove',
  'console.webhooks.register',
  'console.webhooks.update',
  'console.webhooks.retire',
  'console.webhooks.rotate_secret',
  'console.webhooks.replay',
  'console.webhooks.send_test_event',
  'console.jobs.cancel',
  'console.grants.change_allowance',
  'console.settings.agent_policy',
  'console.settings.rename',
  'console.settings.security_policy',
  'console.security.enable_authenticator_app',
  'console.security.disable_authenticator_app',
  'console.security.generate_recovery_codes',
  'console.passkeys.add',
  'console.passkeys.rename',
  'console.passkeys.remove',
] as const;

export type ConsoleOperationName = (typeof CONSOLE_OPERATIONS)[number];
