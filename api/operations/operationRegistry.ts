import type { OperationName } from '../../core/limits/limitTable';
import type { ZodType } from 'zod';
import type { RouteSpec } from '../routeSpec';

/**
 * The operations the executor can run, by name, built from the `defineRoute` declarations of
 * api/routes: one declaration per operation, so two routes can never share a name (and with it
 * a rate, limit entries and metrics).
 */
export type OperationRegistry<N extends string = OperationName> = ReadonlyMap<N, RouteSpec<ZodType, ZodType, ZodType, N>>;

export function operationRegistry<N extends string = OperationName>(specs: readonly RouteSpec<ZodType, ZodType, ZodType, N>[]): OperationRegistry<N> {
  const byName = new Map<N, RouteSpec<ZodType, ZodType, ZodType, N>>();
  for (const spec of specs) {
    if (byName.has(spec.operation)) throw new Error(`operation ${spec.operation} is declared by two routes`);
    byName.set(spec.operation, spec);
  }
  return byName;
}
