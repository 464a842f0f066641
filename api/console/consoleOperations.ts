import type { ConsoleOperation } from './consoleOperation';
import { keyOperations } from './operations/keyOperations';

/** Every console write the executor can run, from each area of the console. */
export const consoleOperations: readonly ConsoleOperation[] = [...keyOperations];
