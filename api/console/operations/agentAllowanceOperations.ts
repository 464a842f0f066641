import { z } from 'zod';
import { agentPolicyOf, setAgentPolicy } from '../../../core/oauth/agentPolicy';
import { allowanceOfGrant, assertAllowanceAllowed, changeGrantAllowance, grantOfUser, type GrantRecord } from '../../../core/oauth/consentGrants';
import { ALLOWANCE_INPUT_MAX, type AgentPolicy, type GrantAllowance } from '../../../core/oauth/grantAllowance';
import { notFound } from '../../../core/problems';
import type { RouteInput } from '../../routeSpec';
import { defineConsoleChange } from '../consoleOperation';
import { CONSOLE_PATHS } from '../consolePaths';

/**
 * The console's writes of AI application allowances (DECISIONS.md "Accounts, settings and AI
 * application allowances"): a person changes what one of their connected applications may spend
 * (any role: the grant is their own; raising it needs sudo mode, which the page asks), and an
 * admin sets the organization's policy on Settings (sudo mode). Both audited.
 */
const credits = z
  .string()
  .trim()
  .regex(/^[0-9]{1,10}$/, 'a whole number of credits')
  .transform(Number)
  .refine((n) => n <= ALLOWANCE_INPUT_MAX, 'too large');

const changeBody = z
  .object({
    grant_id: z.string().regex(/^cg_[0-9A-Za-z]{8,64}$/, 'not a connected application id'),
    allowance: z.enum(['read_only', 'daily', 'unlimited']),
    daily_credits: z.string().optional().default(''),
  })
  .strict();

type ChangeInput = RouteInput<z.output<typeof changeBody>, unknown, unknown>;

/** The allowance the form chose: "Credits a day" counts only for a daily allowance. */
export function allowanceOfForm(body: { allowance: GrantAllowance['mode']; daily_credits: string }): GrantAllowance {
  if (body.allowance !== 'daily') return { mode: body.allowance, dailyCredits: null };
  const n = /^[0-9]{1,10}$/.test(body.daily_credits.trim()) ? Number(body.daily_credits.trim()) : 0;
  return { mode: 'daily', dailyCredits: n };
}

/** The visitor's own grant: another person's grant is not found, whatever the form names. */
async function ownGrant({ principal, body, deps }: ChangeInput): Promise<GrantRecord> {
  const grant = await grantOfUser(deps.stores, principal.keyId, body.grant_id);
  if (!grant) throw notFound('connected application');
  return grant;
}

function grantFields(grant: GrantRecord, allowance: GrantAllowance): Record<string, unknown> {
  return {
    grant_id: grant._id,
    user_id: grant.userId,
    client_id: grant.clientId,
    client_name: grant.clientName,
    allowance: allowance.mode,
    daily_credits: allowance.dailyCredits,
  };
}

const changeAllowanceOperation = defineConsoleChange({
  operation: 'console.grants.change_allowance',
  path: '/console/connected-applications/:grant_id/allowance',
  summary: "Change a connected application's allowance",
  body: changeBody,
  ownChange: true,
  change: async (input) => {
    const grant = await ownGrant(input);
    const allowance = allowanceOfForm(input.body);
    assertAllowanceAllowed(await agentPolicyOf(input.deps.stores, input.principal.orgId), allowance);
    return grantFields(await changeGrantAllowance(input.deps.stores, grant, allowance), allowance);
  },
  audit: {
    action: 'grant.allowance_changed',
    target: ({ body }) => body.grant_id,
    before: async (input) => {
      const grant = await ownGrant(input);
      return grantFields(grant, allowanceOfGrant(grant));
    },
    after: (_input, view) => view,
  },
});

const policyBody = z
  .object({
    agent_mode: z.enum(['spend', 'read_only']),
    default_daily_credits: credits,
    max_daily_credits: z
      .string()
      .trim()
      .regex(/^([0-9]{1,10})?$/, 'a whole number of credits, or empty for no largest')
      .transform((v) => (v === '' ? null : Number(v))),
  })
  .strict();

function policyFields(policy: AgentPolicy): Record<string, unknown> {
  return { mode: policy.mode, default_daily_credits: policy.defaultDailyCredits, max_daily_credits: policy.maxDailyCredits };
}

const agentPolicyOperation = defineConsoleChange({
  operation: 'console.settings.agent_policy',
  path: `${CONSOLE_PATHS.settings}/ai-applications`,
  summary: 'Set the AI application policy',
  body: policyBody,
  change: async ({ principal, body, deps }) =>
    policyFields(
      await setAgentPolicy(
        deps.stores,
        principal.orgId,
        { mode: body.agent_mode, defaultDailyCredits: body.default_daily_credits, maxDailyCredits: body.max_daily_credits },
        new Date(deps.now()),
      ),
    ),
  audit: {
    action: 'agent_policy.updated',
    target: ({ principal }) => principal.orgId,
    before: async ({ principal, deps }) => policyFields(await agentPolicyOf(deps.stores, principal.orgId)),

    after: (_input, view) => view,
  },
});

export const agentAllowanceOperations = [changeAllowanceOperation, agentPolicyOperation];
