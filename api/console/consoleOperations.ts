import type { ConsoleOperation } from './consoleOperation';
import { keyOperations } from './operations/keyOperations';
import { teamOperations } from './operations/teamOperations';

/** Every console write the executor can run, from each area of the console. */
export const consoleOperations: readonly ConsoleOperation[] = [...keyOperations, ...teamOperations];
