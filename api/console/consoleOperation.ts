import type { ZodType, z } from 'zod';
import type { Permission } from '../../core/keys/permissions';
import type { RouteAudit, RouteInput, RouteResult, RouteSpec } from '../routeSpec';
import type { ConsoleOperationName } from './consoleOperationNames';

/**
 * A console write declared as an executor operation: its name, schemas, handler and audit entry,
 * like a /v1 route's declaration minus what only HTTP routes have (OpenAPI text, responses).
 * `path` is the console form it is posted from, which the executor uses as the request line.
 */
export interface ConsoleOperationSpec<B extends ZodType, P extends ZodType> {
  operation: ConsoleOperationName;
  path: string;
  summary: string;
  /** The permission the person needs beyond the admin role (the executor checks it, as for a /v1 route). */
  permission?: Permission;
  body: B;
  params?: P;
  handler: (input: RouteInput<z.output<B>, unknown, z.output<P>>) => Promise<RouteResult>;
  audit: RouteAudit<RouteInput<z.output<B>, unknown, z.output<P>>>;
}

export type ConsoleOperation = RouteSpec<ZodType, ZodType, ZodType, ConsoleOperationName>;

export function defineConsoleOperation<B extends ZodType, P extends ZodType>(spec: ConsoleOperationSpec<B, P>): ConsoleOperation {
  return { ...spec, method: 'POST', tag: 'console', responses: {} } as unknown as ConsoleOperation;
}
