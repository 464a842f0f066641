import type { ConsoleOperation } from './consoleOperation';
import { webhookOperations } from './operations/webhookOperations';

/** Every console write the executor can run, from each area of the console. */
export const consoleOperations: readonly ConsoleOperation[] = [...webhookOperations];
