import escapeHtml from 'escape-html';

/** Proves a SafeHtml came from the `html` tag: nothing outside this module holds it. */
const minted = Symbol('minted by the html tag');

/**
 * HTML that is safe to send: made only by the `html` template tag, from literal markup and
 * escaped values. It is a class, not a shape, so an object from a request or the store that
 * happens to carry an `html` key is text like any other value and gets escaped.
 */
export class SafeHtml {
  readonly #markup: string;

  constructor(markup: string, proof: symbol) {
    if (proof !== minted) throw new TypeError('SafeHtml is made only by the html template tag');
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

/**
 * The template tag of every page: literal parts stay markup; each value is escaped, except a
 * SafeHtml (inserted as it is) and an array (each item by the same rule). null, undefined and
 * false render nothing, so `${cond && html`…`}` reads naturally.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    out += renderValue(value) + strings[i + 1];
  });
  return new SafeHtml(out, minted);
}

function renderValue(value: unknown): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Text escaped for an HTML attribute or element, for the few places that build a string. */
export function escapedText(value: unknown): string {
  return escapeHtml(String(value));
}
