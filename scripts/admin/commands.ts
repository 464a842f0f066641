import type { AdminCommand } from './command';
import { tenancyCommands } from './tenancyCommands';

/** Every operator command; each area of the service contributes its own module. */
export const adminCommands: Record<string, AdminCommand> = {
  ...tenancyCommands,
};
