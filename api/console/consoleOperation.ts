import type { ZodType, z } from 'zod';
import type { Permission } from '../../core/keys/permissions';
import type { AuditChange, RouteAudit, RouteInput, RouteResult, RouteSpec } from '../routeSpec';
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
  /** A change of the person's own (their connected application's allowance): open to every role, not to admins only. */
  ownChange?: true;
  body: B;
  params?: P;
  handler: (input: RouteInput<z.output<B>, unknown, z.output<P>>) => Promise<RouteResult>;
  audit: RouteAudit<RouteInput<z.output<B>, unknown, z.output<P>>>;
}

export type ConsoleOperation = RouteSpec<ZodType, ZodType, ZodType, ConsoleOperationName> & { ownChange?: true };

export function defineConsoleOperation<B extends ZodType, P extends ZodType>(spec: ConsoleOperationSpec<B, P>): ConsoleOperation {
  return { ...spec, method: 'POST', tag: 'console', responses: {} } as unknown as ConsoleOperation;
}

type ChangeInput<B extends ZodType> = RouteInput<z.output<B>, unknown, unknown>;

/**
 * A console write that changes one setting (a budget, a limit): it answers 200 with the setting
 * as the change left it, and its audit entry holds the setting before and after the change.
 */
export interface ConsoleChangeSpec<B extends ZodType, V> extends Pick<
  ConsoleOperationSpec<B, ZodType>,
  'operation' | 'path' | 'summary' | 'body' | 'ownChange'
> {
  change: (input: ChangeInput<B>) => Promise<V>;
  audit: {
    action: AuditChange['action'];
    target: (input: ChangeInput<B>) => string;
    /** The setting the change replaces (run before the change), null when there is none. */
    before: (input: ChangeInput<B>) => Promise<Record<string, unknown> | null>;
    after: (input: ChangeInput<B>, setting: V) => Record<string, unknown>;
  };
}

export function defineConsoleChange<B extends ZodType, V>({ change, audit, ...declaration }: ConsoleChangeSpec<B, V>): ConsoleOperation {
  return defineConsoleOperation({
    ...declaration,
    handler: async (input) => ({ status: 200, body: await change(input) }),
    audit: {
      before: audit.before,
      change: (input, result, before) => ({ action: audit.action, target: audit.target(input), before, after: audit.after(input, result.body as V) }),
    },
  });
}
