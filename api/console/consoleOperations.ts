import type { ConsoleOperation } from './consoleOperation';
import { agentAllowanceOperations } from './operations/agentAllowanceOperations';
import { budgetOperations } from './operations/budgetOperations';
import { jobOperations } from './operations/jobOperations';
import { keyOperations } from './operations/keyOperations';
import { limitOperations } from './operations/limitOperations';
import { teamOperations } from './operations/teamOperations';
import { securityOperations } from './operations/securityOperations';
import { passkeyOperations } from './operations/passkeyOperations';
import { settingsOperations } from './operations/settingsOperations';
import { webhookOperations } from './operations/webhookOperations';

/** Every console write the executor can run, from each area of the console. */
export const consoleOperations: readonly ConsoleOperation[] = [
  ...keyOperations,
  ...teamOperations,
  ...limitOperations,
  ...budgetOperations,
  ...webhookOperations,
  ...jobOperations,
  ...agentAllowanceOperations,
  ...settingsOperations,
  ...securityOperations,
  ...passkeyOperations,
];
