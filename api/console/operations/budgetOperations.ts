import { z } from 'zod';
import { creditSummary, setBudget, type BudgetView } from '../../../core/credits/credits';
import { notFound } from '../../../core/problems';
import type { RouteInput } from '../../routeSpec';
import { defineConsoleChange } from '../consoleOperation';
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

/** The budget of the form's family (or of the organization) set to `amount`, null removing it. */
async function changeBudget({ principal, body, deps }: RouteInput<BudgetInput, unknown, unknown>, amount: number | null): Promise<BudgetView> {
  if (body.family_id && !(await deps.stores.keys.familyExists(principal.orgId, body.family_id))) throw notFound('key family');
  return setBudget(deps, { orgId: principal.orgId, familyId: body.family_id || undefined, amount });
}

async function budgetBefore(input: RouteInput<BudgetInput, unknown, unknown>): Promise<Record<string, unknown>> {
  const summary = await creditSummary(input.deps, input.principal.orgId);
  const familyId = input.body.family_id || null;
  return { family_id: familyId, budget: familyId ? (summary.family_budgets[familyId] ?? null) : summary.organization_budget };
}

function budgetTarget({ principal, body }: RouteInput<BudgetInput, unknown, unknown>): string {
  return body.family_id || principal.orgId;
}

const setBudgetOperation = defineConsoleChange({
  operation: 'console.budgets.set',
  path: CONSOLE_PATHS.budgets,
  summary: 'Set a budget',
  body: setBody,
  change: (input) => changeBudget(input, input.body.budget),
  audit: {
    action: 'budget.set',
    target: budgetTarget,
    before: budgetBefore,
    after: ({ body }, view) => ({ family_id: body.family_id || null, budget: body.budget, remaining: view.remaining }),
  },
});

const removeBudgetOperation = defineConsoleChange({
  operation: 'console.budgets.remove',
  path: `${CONSOLE_PATHS.budgets}/remove`,
  summary: 'Remove a budget',
  body: removeBody,
  change: (input) => changeBudget(input, null),
  audit: {
    action: 'budget.removed',
    target: budgetTarget,
    before: budgetBefore,
    after: ({ body }) => ({ family_id: body.family_id || null, budget: null }),
  },
});

export const budgetOperations = [setBudgetOperation, removeBudgetOperation];
