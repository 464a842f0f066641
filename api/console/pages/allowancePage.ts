import type { Context } from 'koa';
import { agentPolicyOf } from '../../../core/oauth/agentPolicy';
import { allowanceOfGrant, grantOfUser, type GrantRecord } from '../../../core/oauth/consentGrants';
import { raisesAllowance, type AgentPolicy } from '../../../core/oauth/grantAllowance';
import type { OAuthStores } from '../../../core/oauth/store';
import { notFound, Problem } from '../../../core/problems';
import { allowanceFieldset, choiceOf, readAllowanceChoice, type AllowanceChoice } from '../../oauth/allowanceChoice';
import { errorNote, hidden } from '../../views/pageRendering';
import { html } from '../../views/safeHtml';
import { CONNECTIONS_PAGE_PATH } from '../../oauth/pagePaths';
import { sendConsolePage } from '../consoleLayout';
import { seeOther } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import { allowancePath } from '../consolePaths';
import { requireSudoMode, type ConsoleVisitor } from '../consoleVisitor';
import { keepingTheForm } from '../formRefusals';

/**
 * "Change allowance" of one of the visitor's connected applications (DECISIONS.md "Accounts,
 * settings and AI application allowances"): the consent page's choice again. Lowering it takes
 * effect at once; raising it needs the password typed within 15 minutes (sudo mode), and the
 * choice typed before the confirmation comes back with the page.
 */
const GRANT_PATH = '/console/connected-applications/:grant_id/allowance';

async function ownGrant(stores: OAuthStores, visitor: ConsoleVisitor, grantId: unknown): Promise<GrantRecord> {
  const grant = typeof grantId === 'string' ? await grantOfUser(stores, visitor.user._id, grantId) : null;
  if (!grant) throw notFound('connected application');
  return grant;
}

function allowanceForm(
  ctx: Context,
  visitor: ConsoleVisitor,
  grant: GrantRecord,
  policy: AgentPolicy,
  choice: AllowanceChoice,
  message: string | null,
  status = 200,
): void {
  sendConsolePage(
    ctx,
    {
      title: 'Change allowance',
      visitor: visitor.layout,
      current: CONNECTIONS_PAGE_PATH,
      body: html`${errorNote(message)}
        <p>
          What <strong>${grant.clientName}</strong> may do with your permissions from its next call on. Lowering it takes effect at once; raising it asks for
          your password.
        </p>
        <form method="post" action="${allowancePath(grant._id)}">
          ${hidden('csrf_token', visitor.csrf)} ${allowanceFieldset(policy, choice)}
          <button type="submit">Save allowance</button>
        </form>
        <p><a href="${CONNECTIONS_PAGE_PATH}">Back to Connected applications</a></p>`,
    },
    status,
  );
}

/** The choice carried through the password confirmation, else the grant's own. */
function choiceFromQuery(ctx: Context, grant: GrantRecord): AllowanceChoice {
  const mode = ctx.query.allowance;
  if (mode !== 'read_only' && mode !== 'daily' && mode !== 'unlimited') return choiceOf(allowanceOfGrant(grant));
  const credits = typeof ctx.query.daily_credits === 'string' ? ctx.query.daily_credits.slice(0, 12) : '';
  return { mode, credits };
}

/** The reason a refusal gives for the field, as the form shows it. */
function refusalText(problem: Problem): string {
  const errors = problem.extensions.errors as Array<{ message: string }> | undefined;
  return errors?.[0]?.message ?? problem.detail;
}

export function mountAllowancePage(pages: ConsolePages): void {
  pages.get(GRANT_PATH, async (ctx, visitor, { stores }) => {
    const grant = await ownGrant(stores, visitor, ctx.params.grant_id);
    allowanceForm(ctx, visitor, grant, await agentPolicyOf(stores, visitor.user.orgId), choiceFromQuery(ctx, grant), null);
  });
  pages.post(GRANT_PATH, async (ctx, visitor, form, { road, now, stores }) => {
    const grant = await ownGrant(stores, visitor, ctx.params.grant_id);
    const policy = await agentPolicyOf(stores, visitor.user.orgId);

    const read = readAllowanceChoice(form);
    if (!read.ok) return allowanceForm(ctx, visitor, grant, policy, read.choice, read.message, 400);
    if (raisesAllowance(allowanceOfGrant(grant), read.allowance)) {
      const back = `${allowancePath(grant._id)}?${new URLSearchParams({ allowance: read.choice.mode, daily_credits: read.choice.credits })}`;
      if (!(await requireSudoMode(ctx, stores, visitor, back, now()))) return;
    }
    await keepingTheForm(
      async () => {
        await road.run(ctx, visitor, 'console.grants.change_allowance', {
          body: { grant_id: grant._id, allowance: read.allowance.mode, daily_credits: read.choice.credits },
        });
        seeOther(ctx, `${CONNECTIONS_PAGE_PATH}?done=allowance`);
      },
      async (_message, status, problem) => allowanceForm(ctx, visitor, grant, policy, read.choice, refusalText(problem), status),
    );
  });
}
