import { html } from '../../oauth/pageRendering';
import { CONSOLE_NAV, CONSOLE_PATHS } from '../consolePaths';
import { sendConsolePage } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';

/** `/console/overview` "Overview": where signing in lands; a map of the console for now. */
export function mountOverviewPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.overview, async (ctx, visitor) => {
    sendConsolePage(ctx, {
      title: 'Overview',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.overview,
      body: html`<p>
          Signed in as ${visitor.user.email}, ${visitor.role === 'admin' ? 'an admin' : 'a member'} of organization <code>${visitor.user.orgId}</code>.
        </p>
        <ul>
          ${CONSOLE_NAV.filter((e) => e.path !== CONSOLE_PATHS.overview).map((e) => html`<li><a href="${e.path}">${e.label}</a></li>`)}
        </ul>`,
    });
  });
}
