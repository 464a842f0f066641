/**
 * How a stored record's fields read in an API answer (and in the console, which shows the same
 * views): under snake_case names, a time as ISO 8601 UTC text, and a value the record lacks as
 * null rather than left out, so every answer of a kind has the same members.
 */
export type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}` ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}` : S;

/** A field's value as shown: distributes over unions, so `Date | null` shows as `string | null`. */
export type Shown<T> = T extends Date ? string : T extends undefined ? null : T;

export type ApiFields<R, K extends keyof R & string> = { [F in K as SnakeCase<F>]: Shown<R[F]> };

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The named fields of `record`, in the order named, as an answer shows them. */
export function apiFields<R, K extends keyof R & string>(record: R, names: readonly K[]): ApiFields<R, K> {
  const shown: Record<string, unknown> = {};
  for (const name of names) {
    const value = record[name];
    shown[snakeCase(name)] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return shown as ApiFields<R, K>;
}
