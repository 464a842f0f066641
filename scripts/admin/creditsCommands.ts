import { creditSummary, grantCredits, setBudget } from '../../core/credits/credits';
import { setSourceEnabled } from '../../core/talent/sources';
import { intFlag, optionalFlag, requireFlag, UsageError, type AdminCommand } from './command';
import { recordOperatorChange } from './operatorAudit';

/** Credits, budgets and search sources (DECISIONS.md "Operator CLI", "Paid operations"). */
export const creditsCommands: Record<string, AdminCommand> = {
  'credits grant': {
    usage: 'credits grant --org O --amount N',
    run: async (f, deps) => {
      const { stores, now } = deps;
      const orgId = requireFlag(f, 'org');
      const amount = intFlag(f, 'amount', { required: true, min: 1 })!;
      const granted = await grantCredits(deps, orgId, amount);
      await recordOperatorChange({ stores, now }, { orgId, action: 'credits.granted', target: orgId, after: { amount, balance: granted.balance } });
      return granted;
    },
  },
  'credits show': {
    usage: 'credits show --org O',
    run: (f, deps) => creditSummary(deps, requireFlag(f, 'org')),
  },
  'budget set': {
    usage: 'budget set --org O [--family F] --amount N|none   (remaining spend; "none" removes the budget)',
    run: async (f, deps) => {
      const { stores, now } = deps;
      const raw = requireFlag(f, 'amount');
      let amount: number | null = null;
      if (raw !== 'none') {
        amount = intFlag(f, 'amount', { required: true, min: 0 })!;
      }
      const family = optionalFlag(f, 'family');
      if (family !== undefined && !family.startsWith('kf_')) throw new UsageError('--family must be a key family id (kf_…)');
      const orgId = requireFlag(f, 'org');
      const previous = await creditSummary(deps, orgId);
      const before = family === undefined ? previous.organization_budget : (previous.family_budgets[family] ?? null);
      const set = await setBudget(deps, { orgId, familyId: family, amount });
      await recordOperatorChange(
        { stores, now },
        {
          orgId,
          action: amount === null ? 'budget.removed' : 'budget.set',
          target: family ?? orgId,
          before: { family_id: family ?? null, budget: before },
          after: { family_id: family ?? null, budget: amount },
        },
      );
      return set;
    },
  },
  'source enable': {
    usage: 'source enable --org O --source S   (search sources besides the built-in pool)',
    run: (f, { config, stores }) => setSourceEnabled(stores, config, requireFlag(f, 'org'), requireFlag(f, 'source'), true),
  },
  'source disable': {
    usage: 'source disable --org O --source S',
    run: (f, { config, stores }) => setSourceEnabled(stores, config, requireFlag(f, 'org'), requireFlag(f, 'source'), false),
  },
};
