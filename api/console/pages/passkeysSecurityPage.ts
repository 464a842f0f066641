import { html } from '../../oauth/pageRendering';
import { sendConsolePage } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import { mountPasskeysSection, passkeysSection, type ShowSecurity } from '../security/passkeysSection';

/**
 * `/console/security` "Security" (everyone; DECISIONS.md "Accounts, settings …") with its
 * "Passkeys" section. The authenticator app and recovery codes join it as sections of their own.
 */
const show: ShowSecurity = async (ctx, visitor, { config }, passkeys, status = 200) => {
  sendConsolePage(
    ctx,
    { title: 'Security', visitor: visitor.layout, current: CONSOLE_PATHS.security, body: html`${await passkeysSection(visitor, config.authUrl, passkeys)}` },
    status,
  );
};

export function mountPasskeysSecurityPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.security, (ctx, visitor, deps) => show(ctx, visitor, deps, {}));
  mountPasskeysSection(pages, show);
}
