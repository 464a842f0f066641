import { shownFunding } from '../../../core/credits/ledgerEntries';
import { runningJobCount } from '../../../core/jobs/jobList';
import { familyNames } from '../../../core/keys/keyFamilies';
import { DAY_MS } from '../../../core/usage/usageBuckets';
import { storedRollupMarks } from '../../../core/usage/usageRollup';
import { countedUsage, seriesOf } from '../../../core/usage/usageSeries';
import { webhookHealthOf } from '../../../core/webhooks/webhookHealth';
import { html, type SafeHtml } from '../../views/safeHtml';
import { barChart } from '../charts/barChart';
import { creditsChart, rangeEndingAt, requestsChart, usageTotals, type ChartRange } from '../charts/usageCharts';
import { CONSOLE_PATHS } from '../consolePaths';
import { dateText, sendConsolePage } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';

/**
 * `/console/overview` "Overview": where signing in lands. The organization's credits and
 * budgets, its spend and traffic (from the usage counters, the aggregation GET /v1/usage reads,
 * never the ledger or the request log), running jobs and how its webhooks are doing, with the
 * two usage charts. Every figure is one bounded read; nothing here scans a collection.
 */
const FAMILY_BUDGETS_SHOWN = 20;

function figure(term: string, value: SafeHtml | string | number): SafeHtml {
  return html`<div>
    <dt>${term}</dt>
    <dd>${value}</dd>
  </div>`;
}

const n = (value: number) => value.toLocaleString('en');

export function mountOverviewPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.overview, async (ctx, visitor, { stores, ledgerHeads }) => {
    const { orgId, workspaceId } = visitor.user;
    const now = Date.now();
    const days: ChartRange = rangeEndingAt('day', 30, now);
    const hours: ChartRange = rangeEndingAt('hour', 24, now);
    // Both charts' reads plan their rows on one read of the roll-up marks.
    const marks = storedRollupMarks(stores);
    const [funding, dailySpans, hourlySpans, running, webhooks] = await Promise.all([
      shownFunding({ stores, now: () => now, ledgerHeads }, orgId),
      countedUsage(stores, { orgId, granularity: 'day', from: new Date(days.fromMs), to: new Date(days.toMs) }, now, marks),
      countedUsage(stores, { orgId, granularity: 'hour', from: new Date(hours.fromMs), to: new Date(hours.toMs) }, now, marks),
      runningJobCount(stores, orgId),
      webhookHealthOf(stores, workspaceId, new Date(now)),
    ]);
    const daily = seriesOf(dailySpans, 'day');
    const hourly = seriesOf(hourlySpans, 'hour');
    const familyBudgets = Object.entries(funding.familyBudgets).slice(0, FAMILY_BUDGETS_SHOWN);
    const names = await familyNames(
      stores,
      orgId,
      familyBudgets.map(([id]) => id),
    );
    const month = usageTotals(daily);
    const today = usageTotals(daily, days.toMs - DAY_MS);
    const day = usageTotals(hourly);
    const last = webhooks.lastAttempt;

    sendConsolePage(ctx, {
      title: 'Overview',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.overview,
      body: html`<p class="note">
          Signed in as ${visitor.user.email}, ${visitor.role === 'admin' ? 'an admin' : 'a member'} of ${visitor.layout.orgName}
          <span class="id">(${orgId})</span>.
        </p>
        <h2>Credits</h2>
        <dl class="figures">
          ${figure('Credit balance', `${n(funding.creditBalance)} credits`)}
          ${figure('Organization budget remaining', funding.budgetRemaining === null ? 'No budget set' : `${n(funding.budgetRemaining)} credits`)}
          ${figure('Credits spent today (UTC)', n(today.credits))} ${figure('Credits spent over 30 days', n(month.credits))}
        </dl>
        ${
          familyBudgets.length
            ? html`<h3>Key budgets remaining</h3>
                <ul class="plain">
                  ${familyBudgets.map(([id, left]) => html`<li>${names.get(id) ?? id}: ${n(left)} credits</li>`)}
                </ul>`
            : html``
        }
        <p><a href="${CONSOLE_PATHS.budgets}">Budgets</a> · <a href="${CONSOLE_PATHS.usage}">Usage and ledger</a></p>
        <h2>Requests and jobs</h2>
        <dl class="figures">
          ${figure('Requests over 24 hours', n(day.requests))} ${figure('Refused with 429 over 24 hours', n(day.rateLimited))}
          ${figure('Running jobs', html`<a href="${CONSOLE_PATHS.jobs}?status=running">${n(running)}</a>`)}
        </dl>
        <h2>Webhooks of your workspace</h2>
        <dl class="figures">
          ${figure(
            'Last attempt',
            last
              ? html`${last.status.replace('_', ' ')}${last.response_status !== null ? ` (HTTP ${last.response_status})` : last.error_code ? ` (${last.error_code})` : ''},
                ${dateText(last.attempted_at)}`
              : 'None yet',
          )}
          ${figure('Failed attempts over 7 days', n(webhooks.failedAttempts))} ${figure('Dead letters over 7 days', n(webhooks.deadLetters))}
        </dl>
        <p><a href="${CONSOLE_PATHS.webhooks}">Webhooks</a></p>
        <h2>Charts</h2>
        ${barChart(creditsChart(daily, days))} ${barChart(requestsChart(hourly, hours))}`,
    });
  });
}
