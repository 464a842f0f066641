import { html } from '../../views/safeHtml';
import { notAllowed } from '../consoleErrors';
import { sendConsolePage } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import { mayReadSettings } from '../pageAccess';
import { agentPolicySection } from '../settings/agentPolicySection';
import { organizationNameSection } from '../settings/organizationNameSection';
import { securityPolicySection } from '../settings/securityPolicySection';
import type { SettingsSection, ShowSettings } from '../settings/settingsSection';

/**
 * `/console/settings` "Settings" (admins; DECISIONS.md "Accounts, settings and AI application
 * allowances"): the organization's settings, one section per module, in this order, each saved by
 * its own form and operation (sudo mode, audited). A save's confirmation is the console's flash,
 * shown by the layout in `<div role="status">`.
 */
const SETTINGS_SECTIONS: readonly SettingsSection[] = [organizationNameSection, securityPolicySection, agentPolicySection];

const showSettings: ShowSettings = async (ctx, visitor, stores, refused, status = 200) => {
  if (!mayReadSettings(visitor.layout)) throw notAllowed('Only an admin of your organization can see and change its settings.');
  const sections = await Promise.all(SETTINGS_SECTIONS.map((s) => s.render(ctx, visitor, refused?.section === s ? refused.kept : null, stores)));
  sendConsolePage(ctx, { title: 'Settings', visitor: visitor.layout, current: CONSOLE_PATHS.settings, body: html`${sections}` }, status);
};

export function mountSettingsPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.settings, (ctx, visitor, { stores }) => showSettings(ctx, visitor, stores, null));
  for (const section of SETTINGS_SECTIONS) section.mount(pages, showSettings);
}
