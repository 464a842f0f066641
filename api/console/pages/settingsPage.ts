import type { Context } from 'koa';
import { html, type Html } from '../../oauth/pageRendering';
import { notAllowed } from '../consoleErrors';
import { sendConsolePage } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import type { ConsoleVisitor } from '../consoleVisitor';
import { agentPolicySection, mountAgentPolicySection } from '../settings/agentPolicySection';
import type { SettingsSection } from '../settings/settingsSection';

/**
 * `/console/settings` "Settings" (admins; DECISIONS.md "Accounts, settings and AI application
 * allowances"): the organization's settings, one section per setting, each saved by its own form
 * and operation (sudo mode, audited).
 */
const SECTIONS: readonly SettingsSection[] = [agentPolicySection];

const DONE: Record<string, string> = { agent_policy: 'The AI application policy is saved.' };

async function sendSettings(ctx: Context, visitor: ConsoleVisitor, replaced: Html | null, status = 200): Promise<void> {
  if (visitor.role !== 'admin') throw notAllowed('Only an admin of your organization can see and change its settings.');
  const sections = replaced ? [replaced] : await Promise.all(SECTIONS.map((section) => section(ctx, visitor)));
  const done = !replaced && typeof ctx.query.done === 'string' ? DONE[ctx.query.done] : undefined;
  sendConsolePage(
    ctx,
    {
      title: 'Settings',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.settings,
      body: html`${done ? html`<div class="status" role="status">${done}</div>` : ''} ${sections}`,
    },
    status,
  );
}

export function mountSettingsPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.settings, (ctx, visitor) => sendSettings(ctx, visitor, null));
  mountAgentPolicySection(pages, sendSettings);
}
