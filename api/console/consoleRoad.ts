import type { Context } from 'koa';
import type { Deps } from '../../core/deps';
import type { AcquireAdmission, AdmissionHandle } from '../../core/limits/operationAdmission';
import { sudoModeActive } from '../../core/users/sudoMode';
import { createOperationExecutor, type ExecuteOperation } from '../operations/executeOperation';
import { operationRegistry } from '../operations/operationRegistry';
import type { RouteResult } from '../routeSpec';
import { notAllowed } from './consoleErrors';
import { mayChange } from './pageAccess';
import type { ConsoleOperation } from './consoleOperation';
import type { ConsoleOperationName } from './consoleOperationNames';
import type { ConsoleVisitor } from './consoleVisitor';
import { needsSudo, SudoRequired } from './sudoOperations';

/**
 * The one road of a console write: the signed-in person's principal, then the operation executor
 * /v1 and the tool server use (validation, tenant fields, permission, the handler calling the
 * same core/ function as the operator CLI, the audit entry as `user:<id>`).
 *
 * The role rule is decided here, before the executor, for every console operation: only an
 * admin of the organization writes; a member's write (whatever a crafted form posts) is refused
 * with 403 and reaches no handler. The one exception is a change of the person's own (an
 * operation declared `ownChange`), whose handler finds what it changes among the person's own.
 * So is sudo mode: a write of sudoOperations.ts's list from a browser whose password was not
 * confirmed within 15 minutes (on the app's clock) throws `SudoRequired` before anything runs,
 * and the page asks for the password.
 *
 * Admission: console operations are held to none of the organization's API limits (request
 * rate, in-flight limit, caps, blocks). Those limits protect the API from its callers; an admin
 * must be able to lower a cap or block an operation precisely when the API's traffic uses them
 * up. A console write is a person's click behind a session and a CSRF token.
 */
export interface ConsoleRoad {
  run: (
    ctx: Context,
    visitor: ConsoleVisitor,
    operation: ConsoleOperationName,
    input: { params?: Record<string, string>; body: unknown },
  ) => Promise<RouteResult>;
}

const NO_LIMITS: AdmissionHandle<ConsoleOperationName> = {
  admitOperation: async () => {},
  rateLimitHeaders: () => ({}),
  release: () => {},
};

const consoleAdmission: AcquireAdmission<ConsoleOperationName> = async () => NO_LIMITS;

export function createConsoleRoad(deps: Deps, operations: readonly ConsoleOperation[]): ConsoleRoad {
  const execute: ExecuteOperation<ConsoleOperationName> = createOperationExecutor(operationRegistry(operations), deps, consoleAdmission);
  const ownChanges = new Set(operations.filter((o) => o.ownChange).map((o) => o.operation));
  return {
    async run(ctx, visitor, operation, input) {
      if (!mayChange(visitor) && !ownChanges.has(operation)) throw notAllowed();
      if (needsSudo(operation, input.body) && !(await sudoModeActive(deps.stores, visitor.sessionValue, new Date(deps.now()))))
        throw new SudoRequired(operation);
      return execute(operation, {
        principal: visitor.principal,
        params: input.params ?? {},
        body: input.body,
        requestId: ctx.state.requestId,
        clientAddress: ctx.ip || undefined,
      });
    },
  };
}
