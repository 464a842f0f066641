import { inspect } from 'node:util';

/**
 * A secret carried in the config (an API key, a private key): it reads as `[redacted]` when
 * logged, serialised or inspected, so passing the config (or a slice of it) to a logger or an
 * error leaks nothing; the one place that needs the value calls `reveal()`.
 */
export class Concealed<T> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  reveal(): T {
    return this.#value;
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}
