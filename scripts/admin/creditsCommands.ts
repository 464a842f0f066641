import { creditSummary, grantCredits, setBudget } from '../../core/credits/credits';
import { setSourceEnabled } from '../../core/talent/sources';
import { intFlag, optionalFlag, requireFlag, UsageError, type AdminCommand } from './command';

/** Credits, budgets and search sources (DECISIONS.md "Operator CLI", "Paid operations"). */
export const creditsCommands: Record<string, AdminCommand> = {
  'credits grant': {
    usage: 'credits grant --org O --amount N',
    run: (f) => grantCredits(requireFlag(f, 'org'), intFlag(f, 'amount', { required: true, min: 1 })!),
  },
  'credits show': {
    usage: 'credits show --org O',
    run: (f) => creditSummary(requireFlag(f, 'org')),
  },
  'budget set': {
    usage: 'budget set --org O [--family F] --amount N|none   (remaining spend; "none" removes the budget)',
    run: (f) => {
      const raw = requireFlag(f, 'amount');
      let amount: number | null = null;
      if (raw !== 'none') {
        amount = intFlag(f, 'amount', { required: true, min: 0 })!;
      }
      const family = optionalFlag(f, 'family');
      if (family !== undefined && !family.startsWith('kf_')) throw new UsageError('--family must be a key family id (kf_…)');
      return setBudget({ orgId: requireFlag(f, 'org'), familyId: family, amount });
    },
  },
  'source enable': {
    usage: 'source enable --org O --source S   (search sources besides the built-in pool)',
    run: (f, config) => setSourceEnabled(config, requireFlag(f, 'org'), requireFlag(f, 'source'), true),
  },
  'source disable': {
    usage: 'source disable --org O --source S',
    run: (f, config) => setSourceEnabled(config, requireFlag(f, 'org'), requireFlag(f, 'source'), false),
  },
};
