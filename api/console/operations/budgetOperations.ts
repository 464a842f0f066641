import { z } from 'zod';
import { creditSummary, setBudget, type BudgetView } from '../../../core/credits/credits';
import { familyExists } from '../../../core/keys/store';
import { notFound } from '../../../core/problems';
import type { RouteInput } from '../../routeSpec';
import { defineConsoleOperation } from '../consoleOperation';
import { CONSOLE_PATHS } from '../consolePaths';

/**
 * The console's budget writes (SPEC 7.3, DECISIONS.md "Organization console"): the remaining
 * spend of the organization or of one key family, set or removed through core/credits setBudget,
 * as the operator CLI's `budget set` does. A family of another organization is not found.
 */
const familyField = z
  .string()
  .trim()
  .regex(/^(kf_[0-9A-Za-z]{8,64})?$/, 'not a key family id')
  .optional()
  .default('');

const setBody = z
  .object({
    family_id: familyField,
    budget: z
      .string()
      .trim()
      .regex(/^[0-9]{1,12}$/, 'the budget must be a whole number of credits, 0 or more')
      .transform(Number),
  })
  .strict();

const removeBody = z.object({ family_id: familyField }).strict();

type BudgetInput = { family_id: string };

async function requireOwnFamily(orgId: string, familyId: string): Promise<void> {
  if (familyId && !(await familyExists(orgId, familyId))) throw notFound('key family');
}

async function budgetBefore(input: RouteInput<BudgetInput, unknown, unknown>): Promise<Record<string, unknown>> {
  const summary = await creditSummary(input.principal.orgId, input.deps.ledgerHeads);
  const familyId = input.body.family_id || null;
  return { family_id: familyId, budget: familyId ? (summary.family_budgets[familyId] ?? null) : summary.organization_budget };
}

const setBudgetOperation = defineConsoleOperation({
  operation: 'console.budgets.set',
  path: CONSOLE_PATHS.budgets,
  summary: 'Set a budget',
  body: setBody,
  handler: async ({ principal, body, deps }) => {
    await requireOwnFamily(principal.orgId, body.family_id);
    const view = await setBudget({ orgId: principal.orgId, familyId: body.family_id || undefined, amount: body.budget }, deps.ledgerHeads);
    return { status: 200, body: view };
  },
  audit: {
    before: budgetBefore,
    change: ({ principal, body }, result, before) => ({
      action: 'budget.set',
      target: body.family_id || principal.orgId,
      before,
      after: { family_id: body.family_id || null, budget: body.budget, remaining: (result.body as BudgetView).remaining },
    }),
  },
});

const removeBudgetOperation = defineConsoleOperation({
  operation: 'console.budgets.remove',
  path: `${CONSOLE_PATHS.budgets}/remove`,
  summary: 'Remove a budget',
  body: removeBody,
  handler: async ({ principal, body, deps }) => {
    await requireOwnFamily(principal.orgId, body.family_id);
    const view = await setBudget({ orgId: principal.orgId, familyId: body.family_id || undefined, amount: null }, deps.ledgerHeads);
    return { status: 200, body: view };
  },
  audit: {
    before: budgetBefore,
    change: ({ principal, body }, _result, before) => ({
      action: 'budget.removed',
      target: body.family_id || principal.orgId,
      before,
      after: { family_id: body.family_id || null, budget: null },
    }),
  },
});

export const budgetOperations = [setBudgetOperation, removeBudgetOperation];
