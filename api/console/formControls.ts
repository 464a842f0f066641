import { PERMISSION_DESCRIPTIONS, type Permission } from '../../core/keys/permissions';
import { hidden } from '../views/pageRendering';
import { html, type SafeHtml } from '../views/safeHtml';

/**
 * Labelled form controls of the console, each with a stable id so its `<label for>` names it
 * (the browser tests find controls by these labels), and a form that always carries its CSRF token.
 */
export function postForm(action: string, csrf: string, body: SafeHtml, extra: { confirm?: string } = {}): SafeHtml {
  return html`<form method="post" action="${action}" ${extra.confirm ? html`data-confirm="${extra.confirm}"` : ''}>
    ${hidden('csrf_token', csrf)} ${body}
  </form>`;
}

export interface TextInputOptions {
  value?: string;
  type?: string;
  /** The field's name when several forms of one page post the same one; the id otherwise. */
  name?: string;
  required?: boolean;
  maxLength?: number;
  autocomplete?: string;
  /** Whole numbers only: a numeric keypad on phones, refused by the browser otherwise. */
  digits?: boolean;
}

export function textInput(id: string, label: string | SafeHtml, opts: TextInputOptions = {}): SafeHtml {
  return html`<label for="${id}">${label}</label>
    <input
      id="${id}"
      name="${opts.name ?? id}"
      type="${opts.type ?? 'text'}"
      ${opts.digits ? html`inputmode="numeric" pattern="[0-9]*"` : ''}
      value="${opts.value ?? ''}"
      ${opts.required === false ? '' : html`required`}
      ${opts.maxLength ? html`maxlength="${opts.maxLength}"` : ''}
      autocomplete="${opts.autocomplete ?? 'off'}"
    />`;
}

export interface SelectOption {
  value: string;
  label: string;
}

export function selectInput(id: string, label: string, options: readonly SelectOption[], selected?: string): SafeHtml {
  return html`<label for="${id}">${label}</label>
    <select id="${id}" name="${id}">
      ${options.map((o) => html`<option value="${o.value}" ${o.value === selected ? html`selected` : ''}>${o.label}</option>`)}
    </select>`;
}

/**
 * One checkbox per permission, labelled with the permission string itself, its one-line
 * description beside it (`aria-describedby`), and "Select all": posted, it stands for every
 * permission offered (so it works without script); the script also ticks the boxes as it is ticked.
 */
export function permissionCheckboxes(legend: string, name: string, permissions: readonly Permission[], checked: readonly string[]): SafeHtml {
  const all = permissions.length > 0 && permissions.every((p) => checked.includes(p));
  return html`<fieldset class="permissions">
    <legend>${legend}</legend>
    <label for="${name}-all"
      ><input type="checkbox" id="${name}-all" name="${name}_all" value="yes" data-select-all="${name}" ${all ? html`checked` : ''} />Select all</label
    >
    ${permissions.map(
      (p, i) =>
        html`<div class="permission">
          <label for="${name}-${i}"
            ><input
              type="checkbox"
              id="${name}-${i}"
              name="${name}"
              value="${p}"
              aria-describedby="${name}-${i}-note"
              ${checked.includes(p) ? html`checked` : ''}
            /><code>${p}</code></label
          >
          <span class="note" id="${name}-${i}-note">${PERMISSION_DESCRIPTIONS[p]}</span>
        </div>`,
    )}
  </fieldset>`;
}

/** The permissions a form of permissionCheckboxes posted: every one offered when "Select all" was ticked. */
export function postedPermissions(form: URLSearchParams, name: string, offered: readonly string[]): string[] {
  return form.get(`${name}_all`) === 'yes' ? [...offered] : form.getAll(name);
}
