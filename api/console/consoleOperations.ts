import type { ConsoleOperation } from './consoleOperation';
import { jobOperations } from './operations/jobOperations';

/** Every console write the executor can run, from each area of the console. */
export const consoleOperations: readonly ConsoleOperation[] = [...jobOperations];
