import { ALLOWANCE_INPUT_MAX, type AgentPolicy, type AllowanceMode, type GrantAllowance } from '../../core/oauth/grantAllowance';
import { TOOL_DEFINITIONS } from '../mcp/toolCatalog';
import { html, type SafeHtml } from '../views/safeHtml';

/**
 * "This application may" (DECISIONS.md "Accounts, settings and AI application allowances"): the
 * radio buttons of the consent page and of "Change allowance", and reading the choice back. A
 * choice that cannot be read is kept as typed, so the page shows it again with the reason.
 */
export interface AllowanceChoice {
  mode: AllowanceMode;
  /** "Credits a day" as typed. */
  credits: string;
}

export type ReadChoice = { ok: true; allowance: GrantAllowance; choice: AllowanceChoice } | { ok: false; message: string; choice: AllowanceChoice };

/** The tools a read-only application keeps, by their titles (every tool that spends credits is gone). */
export const READ_ONLY_TOOL_TITLES = TOOL_DEFINITIONS.filter((t) => t.annotations.readOnlyHint).map((t) => t.title);

export function choiceOf(allowance: GrantAllowance): AllowanceChoice {
  return { mode: allowance.mode, credits: allowance.dailyCredits === null ? '' : String(allowance.dailyCredits) };
}

/** What consent proposes: a daily allowance of the policy's default, or only reading where applications may not spend. */
export function proposedChoice(policy: AgentPolicy): AllowanceChoice {
  return policy.mode === 'read_only' ? { mode: 'read_only', credits: '' } : { mode: 'daily', credits: String(policy.defaultDailyCredits) };
}

/** The choice the form posted; `proposed` stands in for a form that sent none (a client posting the consent form itself). */
export function readAllowanceChoice(form: URLSearchParams, proposed?: AllowanceChoice): ReadChoice {
  const mode = form.get('allowance') ?? proposed?.mode ?? null;
  const credits = (form.get('daily_credits') ?? (form.get('allowance') === null ? proposed?.credits : undefined) ?? '').trim().slice(0, 12);
  const typed = (m: AllowanceMode): AllowanceChoice => ({ mode: m, credits });
  if (mode === 'read_only' || mode === 'unlimited') return { ok: true, allowance: { mode, dailyCredits: null }, choice: typed(mode) };
  if (mode !== 'daily') return { ok: false, message: 'Choose what this application may do.', choice: typed('daily') };
  if (!/^[0-9]{1,10}$/.test(credits) || Number(credits) < 1 || Number(credits) > ALLOWANCE_INPUT_MAX) {
    return { ok: false, message: 'Enter the credits a day as a whole number, 1 or more.', choice: typed('daily') };
  }
  return { ok: true, allowance: { mode: 'daily', dailyCredits: Number(credits) }, choice: typed('daily') };
}

function radio(value: AllowanceMode, label: string, checked: boolean, extra: SafeHtml | string = ''): SafeHtml {
  return html`<div class="choice">
    <input type="radio" id="allowance-${value}" name="allowance" value="${value}" ${checked ? html`checked` : ''} />
    <label for="allowance-${value}">${label}</label>
    ${extra}
  </div>`;
}

/** The fieldset: "Only read", "Spend up to a daily allowance" with "Credits a day", and "Spend without a daily allowance" where the policy allows it. */
export function allowanceFieldset(policy: AgentPolicy, choice: AllowanceChoice): SafeHtml {
  const spends = policy.mode === 'spend';
  const limit = policy.maxDailyCredits;
  return html`<fieldset class="allowance">
    <legend>This application may</legend>
    ${radio(
      'read_only',
      'Only read',
      choice.mode === 'read_only' || !spends,
      html`<p class="note" id="read-only-tools">No tool that spends credits; it keeps: ${READ_ONLY_TOOL_TITLES.join(', ')}.</p>`,
    )}
    ${
      spends
        ? html`${radio(
            'daily',
            'Spend up to a daily allowance',
            choice.mode === 'daily',
            html`<label for="daily_credits" class="nested">Credits a day</label>
              <input
                id="daily_credits"
                name="daily_credits"
                type="text"
                inputmode="numeric"
                pattern="[0-9]*"
                value="${choice.credits}"
                aria-describedby="daily-credits-note"
                autocomplete="off"
              />
              <p class="note" id="daily-credits-note">
                A day is a UTC day.${limit === null ? '' : ` Your organization allows at most ${limit} credits a day.`}
              </p>`,
          )}
          ${limit === null ? radio('unlimited', 'Spend without a daily allowance', choice.mode === 'unlimited') : ''}`
        : html`<p class="note">Your organization lets AI applications only read.</p>`
    }
  </fieldset>`;
}
