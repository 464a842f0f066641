import { agentPolicyOf } from '../../../core/oauth/agentPolicy';
import type { AgentPolicy } from '../../../core/oauth/grantAllowance';
import { Problem } from '../../../core/problems';
import { errorNote } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { requireAdmin } from '../consoleErrors';
import { seeOtherSaying } from '../consoleLayout';
import { CONSOLE_PATHS } from '../consolePaths';
import { requireSudoMode, type ConsoleVisitor } from '../consoleVisitor';
import { postForm, selectInput, textInput } from '../formControls';
import { carriedValues, type SettingsSection } from './settingsSection';
import { keepingTheForm } from '../formRefusals';

/**
 * Settings' "AI applications" section (DECISIONS.md "Accounts, settings and AI application
 * allowances"): the daily allowance consent proposes, the largest a person may choose (empty: no
 * largest, so people may also let an application spend without a daily allowance), and whether
 * applications may spend at all. Saving needs sudo mode and is audited (`agent_policy.updated`).
 */
export const AGENT_POLICY_PATH = `${CONSOLE_PATHS.settings}/ai-applications`;

interface PolicyForm {
  agent_mode: string;
  default_daily_credits: string;
  max_daily_credits: string;
}

function formOf(policy: AgentPolicy): PolicyForm {
  return {
    agent_mode: policy.mode,
    default_daily_credits: String(policy.defaultDailyCredits),
    max_daily_credits: policy.maxDailyCredits === null ? '' : String(policy.maxDailyCredits),
  };
}

function typedForm(source: { get(name: string): string | null | undefined }): PolicyForm | null {
  const mode = source.get('agent_mode');
  if (mode !== 'spend' && mode !== 'read_only') return null;
  const text = (name: string) => (source.get(name) ?? '').trim().slice(0, 12);
  return { agent_mode: mode, default_daily_credits: text('default_daily_credits'), max_daily_credits: text('max_daily_credits') };
}

function renderSection(visitor: ConsoleVisitor, form: PolicyForm, message: string | null): SafeHtml {
  return html`<section aria-labelledby="ai-applications">
    <h2 id="ai-applications">AI applications</h2>
    <p>
      What people's AI applications (Claude, VS Code, Cursor…) may spend with their permissions. Each person chooses an application's allowance when connecting
      it, within these bounds; lowering them holds from each application's next call. A day is a UTC day.
    </p>
    ${errorNote(message)}
    ${postForm(
      AGENT_POLICY_PATH,
      visitor.csrf,
      html`${textInput('default_daily_credits', 'Default daily allowance', { value: form.default_daily_credits, digits: true })}
        ${textInput('max_daily_credits', 'Largest daily allowance', { value: form.max_daily_credits, digits: true, required: false })}
        <p class="note" id="max-note">Credits a day. Leave it empty to let people also choose "Spend without a daily allowance".</p>
        ${selectInput(
          'agent_mode',
          'AI applications may',
          [
            { value: 'spend', label: 'Spend within an allowance' },
            { value: 'read_only', label: 'Only read' },
          ],
          form.agent_mode,
        )}
        <button type="submit">Save AI application policy</button>`,
    )}
  </section>`;
}

const POLICY_FIELDS = ['agent_mode', 'default_daily_credits', 'max_daily_credits'] as const;

function refusalText(problem: Problem): string {
  const errors = problem.extensions.errors as Array<{ field: string; message: string }> | undefined;
  if (!errors?.length) return problem.detail;
  const names: Record<string, string> = { default_daily_credits: 'Default daily allowance', max_daily_credits: 'Largest daily allowance' };
  return errors.map((e) => `${names[e.field] ?? 'AI applications may'}: ${e.message}.`).join(' ');
}

/**
 * The section as Settings shows it: what was typed and refused, or what the admin typed before
 * confirming the password (carried in the query), or the stored policy.
 */
export const agentPolicySection: SettingsSection = {
  async render(ctx, visitor, kept, stores) {
    if (kept)
      return renderSection(
        visitor,
        typedForm({ get: (name) => kept.values[name] ?? null }) ?? formOf(await agentPolicyOf(stores, visitor.user.orgId)),
        kept.message,
      );
    const carried = carriedValues(ctx, POLICY_FIELDS);
    const typed = carried ? typedForm({ get: (name) => carried[name] ?? null }) : null;
    return renderSection(visitor, typed ?? formOf(await agentPolicyOf(stores, visitor.user.orgId)), null);
  },
  mount(pages, show) {
    pages.post(AGENT_POLICY_PATH, async (ctx, visitor, form, { road, now, stores }) => {
      requireAdmin(visitor);
      const typed = typedForm(form) ?? { agent_mode: '', default_daily_credits: '', max_daily_credits: '' };
      if (!(await requireSudoMode(ctx, stores, visitor, `${CONSOLE_PATHS.settings}?${new URLSearchParams({ ...typed })}`, now()))) return;
      await keepingTheForm(
        async () => {
          await road.run(ctx, visitor, 'console.settings.agent_policy', { body: { ...typed } });
          seeOtherSaying(ctx, CONSOLE_PATHS.settings, 'The AI application policy is saved.');
        },
        (_message, status, problem) =>
          show(ctx, visitor, stores, { section: agentPolicySection, kept: { values: { ...typed }, message: refusalText(problem) } }, status),
      );
    });
  },
};
