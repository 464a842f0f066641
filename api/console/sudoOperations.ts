import type { ConsoleOperationName } from './consoleOperationNames';

/**
 * Which console writes need sudo mode (core/users/sudoMode.ts), in this one place: every write
 * that hands out a lasting access. Creating or rotating a key, inviting anyone, changing a role or
 * permissions, registering a webhook endpoint, re-pointing it and rotating its signing secret.
 * Turning off an authenticator app (it may be the last factor) and generating new recovery codes.
 * Removing a passkey (a factor) does too, so a stolen session cannot strip a person's factors.
 * Disabling or enabling an endpoint, revoking a key or disabling a person takes access away and
 * needs none. The console road asks this list before every write, so no page can forget it.
 */
type SudoRule = true | ((body: unknown) => boolean);

/** An endpoint update needs sudo when it names a new URL (a re-point), not for a state change. */
const namesUrl = (body: unknown) => typeof body === 'object' && body !== null && 'url' in body;

export const SUDO_OPERATIONS: Readonly<Partial<Record<ConsoleOperationName, SudoRule>>> = {
  'console.keys.create': true,
  'console.keys.rotate': true,
  'console.team.invite': true,
  'console.team.update': true,
  'console.webhooks.register': true,
  'console.webhooks.update': namesUrl,
  'console.webhooks.rotate_secret': true,
  'console.security.disable_authenticator_app': true,
  'console.security.generate_recovery_codes': true,
  'console.passkeys.remove': true,
};

/** Whether running `operation` with `body` needs sudo mode; without a body, whether it always does (a form about to be opened). */
export function needsSudo(operation: ConsoleOperationName, body?: unknown): boolean {
  const rule = SUDO_OPERATIONS[operation];
  if (rule === undefined) return false;
  if (rule === true) return true;
  return body !== undefined && rule(body);
}

/** Thrown by the console road when a write needs sudo mode and the browser is not in it: nothing ran. */
export class SudoRequired extends Error {
  constructor(readonly operation: ConsoleOperationName) {
    super(`${operation} needs the password confirmed within the last 15 minutes`);
    this.name = 'SudoRequired';
  }
}
