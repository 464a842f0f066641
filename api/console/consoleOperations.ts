import type { ConsoleOperation } from './consoleOperation';
import { budgetOperations } from './operations/budgetOperations';
import { limitOperations } from './operations/limitOperations';

/** Every console write the executor can run, from each area of the console. */
export const consoleOperations: readonly ConsoleOperation[] = [...limitOperations, ...budgetOperations];
