import Router from '@koa/router';
import type { Deps } from '../../core/deps';
import { admissionUnder } from '../../core/limits/operationAdmission';
import { ROUTER_OPTIONS } from '../routerOptions';
import { storeOutagePage } from '../oauth/authorizationFlow';
import { mountConsoleAssets } from './consoleAssets';
import { mountPasskeyAssets } from './passkeyAssets';
import { notFoundPage } from './consoleErrors';
import { seeOther } from './consoleLayout';
import { consoleOperations } from './consoleOperations';
import { consolePages, type ConsolePages } from './consolePages';
import { CONSOLE_PATHS, CONSOLE_ROOT } from './consolePaths';
import { consoleReads } from './consoleReads';
import { createConsoleRoad } from './consoleRoad';
import { requireVisitor } from './consoleVisitor';
import { mountAllowancePage } from './pages/allowancePage';
import { mountAuditPage } from './pages/auditPage';
import { mountBudgetsPage } from './pages/budgetsPage';
import { mountConfirmPage } from './pages/confirmPage';
import { mountJobsPages } from './pages/jobsPages';
import { mountKeysPages } from './pages/keysPages';
import { mountLimitsPage } from './pages/limitsPage';
import { mountOverviewPage } from './pages/overviewPage';
import { mountSecurityPages } from './pages/securityPages';
import { mountSettingsPage } from './pages/settingsPage';
import { mountTeamPages } from './pages/teamPages';
import { mountUsagePage } from './pages/usagePage';
import { mountWebhookDeliveriesPages } from './pages/webhookDeliveriesPages';
import { mountWebhooksPage } from './pages/webhooksPage';

/** Each page module of the console mounts its pages through the shared guard (consolePages.ts). */
const PAGE_MODULES: ReadonlyArray<(pages: ConsolePages) => void> = [
  mountOverviewPage,
  mountConfirmPage,
  mountKeysPages,
  mountLimitsPage,
  mountBudgetsPage,
  mountTeamPages,
  mountAuditPage,
  mountWebhooksPage,
  mountWebhookDeliveriesPages,
  mountUsagePage,
  mountJobsPages,
  mountAllowancePage,
  mountSettingsPage,
  mountSecurityPages,
];

/**
 * The organization console under `{AUTH_URL}/console` (DECISIONS.md "Organization console"), on
 * the sign-in pages' session. Any other path under /console is the console's 404 page.
 */
export function consoleRouter(deps: Deps): Router {
  const { config } = deps;
  const router = new Router(ROUTER_OPTIONS);
  mountConsoleAssets(router);
  mountPasskeyAssets(router);
  router.get(CONSOLE_ROOT, (ctx) => seeOther(ctx, CONSOLE_PATHS.overview));
  const pages = consolePages(router, {
    config,
    road: createConsoleRoad(deps, consoleOperations),
    decoy: deps.decoy,
    reads: consoleReads(admissionUnder(deps), deps.admission, config),
    now: () => new Date(deps.now()),
    stores: deps.stores,
    ledgerHeads: deps.ledgerHeads,
    purposeKeys: deps.purposeKeys,
  });
  for (const mount of PAGE_MODULES) mount(pages);
  router.all(
    `${CONSOLE_ROOT}/*rest`,
    storeOutagePage(async (ctx) => {
      const visitor = await requireVisitor(ctx, { config, stores: deps.stores, now: () => new Date(deps.now()), purposeKeys: deps.purposeKeys });
      if (visitor) notFoundPage(ctx, visitor.layout);
    }),
  );
  return router;
}
