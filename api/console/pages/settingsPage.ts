import { html } from '../../oauth/pageRendering';
import { notAllowed } from '../consoleErrors';
import { sendConsolePage } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import { requireSudo } from '../consoleVisitor';
import { mayReadSettings } from '../pageAccess';
import { organizationNameSection } from '../settings/organizationNameSection';
import type { SettingsSection, ShowSettings } from '../settings/settingsSection';

/**
 * `/console/settings` "Settings" (DECISIONS.md "Accounts, settings…"), for admins: one section per
 * module, in this order. Every save needs sudo mode, so the page asks for it when opened, as
 * "Create an API key" does, and nothing typed is lost to the password prompt.
 */
const SETTINGS_SECTIONS: readonly SettingsSection[] = [organizationNameSection];

const showSettings: ShowSettings = async (ctx, visitor, refused, status = 200) => {
  const sections = await Promise.all(SETTINGS_SECTIONS.map((s) => s.render(visitor, refused?.section === s ? refused.kept : null)));
  sendConsolePage(ctx, { title: 'Settings', visitor: visitor.layout, current: CONSOLE_PATHS.settings, body: html`${sections}` }, status);
};

export function mountSettingsPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.settings, async (ctx, visitor) => {
    if (!mayReadSettings(visitor.layout)) throw notAllowed('Settings are for admins of your organization.');
    if (!(await requireSudo(ctx, visitor, CONSOLE_PATHS.settings))) return;
    await showSettings(ctx, visitor, null);
  });
  for (const section of SETTINGS_SECTIONS) section.mount(pages, showSettings);
}
