import type { AdminCommand } from './command';
import { creditsCommands } from './creditsCommands';
import { jobsCommands } from './jobsCommands';
import { limitsCommands } from './limitsCommands';
import { m2mCommands } from './m2mCommands';
import { tenancyCommands } from './tenancyCommands';
import { userCommands } from './userCommands';
import { webhookListenCommands } from './webhookListen';
import { webhooksCommands } from './webhooksCommands';

/** Every operator command; each area of the service contributes its own module. */
export const adminCommands: Record<string, AdminCommand> = {
  ...tenancyCommands,
  ...m2mCommands,
  ...webhooksCommands,
  ...webhookListenCommands,
  ...limitsCommands,
  ...creditsCommands,
  ...jobsCommands,
  ...userCommands,
};
