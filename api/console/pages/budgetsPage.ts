import type { Context } from 'koa';
import { creditSummary } from '../../../core/credits/credits';
import type { KeysStores } from '../../../core/keys/store';
import { ReadCache } from '../../../core/store/readCache';
import { errorNote, hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { requireAdmin } from '../consoleErrors';
import { readOnlyNote, seeOtherSaying, sendConsolePage, stackingTable, type TableCell } from '../consoleLayout';
import { mayChange } from '../pageAccess';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import type { ConsoleVisitor } from '../consoleVisitor';
import { postForm, textInput } from '../formControls';
import { keepingTheForm } from '../formRefusals';
import { pageNumber, pager } from '../listPages';

/**
 * `/console/budgets` "Budgets" (SPEC 7.3, DECISIONS.md "Organization console"): the
 * organization's budget and each key family's, as what remains to be spent under it (a budget
 * is the remaining spend, as the operator CLI's `budget set` sets it). Admins set, change and
 * remove them; members see the figures only.
 */
export const FAMILIES_PER_PAGE = 50;

interface FamilyRow {
  familyId: string;
  name: string;
  keys: number;
}

/** The organization's key families, newest first, named after their newest key (keys are few per organization). */
async function keyFamilies(stores: KeysStores, orgId: string): Promise<FamilyRow[]> {
  const keys = await stores.keys.familyKeysOfOrgNewestFirst(orgId);
  const families = new Map<string, FamilyRow>();
  for (const k of keys) {
    const row = families.get(k.familyId);
    if (row) row.keys += 1;
    else families.set(k.familyId, { familyId: k.familyId, name: k.name ?? `${k.displayPrefix}…`, keys: 1 });
  }
  return [...families.values()];
}

const credits = (n: number | null) => (n === null ? 'No budget' : `${n} credits`);

const DONE = { set: 'The budget is saved.', removed: 'The budget is removed.' };

function budgetInput(id: string, label: SafeHtml, value: number | null): SafeHtml {
  return textInput(id, label, { name: 'budget', digits: true, value: value === null ? '' : String(value) });
}

function familyRow(f: FamilyRow, remaining: number | null, visitor: ConsoleVisitor): TableCell[] {
  const figures: TableCell[] = [{ body: f.name }, { body: html`<code>${f.familyId}</code>` }, { body: credits(remaining) }];
  if (!mayChange(visitor)) return figures;
  return [
    ...figures,
    {
      className: 'actions',
      ownLabel: true,
      body: html`${postForm(
        CONSOLE_PATHS.budgets,
        visitor.csrf,
        html`${hidden('family_id', f.familyId)}
          ${budgetInput(`budget-${f.familyId}`, html`Budget<span class="vh"> for ${f.name} (${f.familyId})</span>`, remaining)}
          <button type="submit">Save budget<span class="vh"> for ${f.name}</span></button>`,
      )}
      ${
        remaining !== null
          ? postForm(
              `${CONSOLE_PATHS.budgets}/remove`,
              visitor.csrf,
              html`${hidden('family_id', f.familyId)} <button type="submit" class="secondary">Remove budget<span class="vh"> for ${f.name}</span></button>`,
            )
          : ''
      }`,
    },
  ];
}

/**
 * The organization's key families through a read cache of READ_CACHE_MS (as limit settings are
 * read): FerretDB decodes every key document of the organization for this list (about 40 ms for
 * 200 keys), too much for every view of the page. A new key family shows within READ_CACHE_MS.
 */
type FamilyReads = ReadCache<FamilyRow[]>;

async function sendBudgetsPage(
  ctx: Context,
  visitor: ConsoleVisitor,
  deps: ConsoleDeps,
  familyReads: FamilyReads,
  message: string | null,
  status = 200,
): Promise<void> {
  const orgId = visitor.user.orgId;
  const [summary, families] = await Promise.all([
    creditSummary({ stores: deps.stores, now: () => deps.now().getTime() }, orgId),
    familyReads.get(orgId, deps.config.readCacheMs, () => keyFamilies(deps.stores, orgId)),
  ]);
  const page = pageNumber(ctx.query.page);
  const shown = families.slice((page - 1) * FAMILIES_PER_PAGE, page * FAMILIES_PER_PAGE);
  const more = families.length > page * FAMILIES_PER_PAGE;
  const admin = mayChange(visitor);
  sendConsolePage(
    ctx,
    {
      title: 'Budgets',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.budgets,
      body: html`${errorNote(message)} ${readOnlyNote(visitor)}
        <p>
          A budget is what may still be spent: each paid call lowers it by its price, and a call it does not cover is refused with
          <code>402</code>. Credit balance: ${summary.balance} credits.
        </p>
        <h2>Organization budget</h2>
        <p>
          Remaining: ${credits(summary.organization_budget)}${summary.organization_budget === null ? ' (spending is bounded by the credit balance only)' : ''}.
        </p>
        ${
          admin
            ? html`${postForm(
                CONSOLE_PATHS.budgets,
                visitor.csrf,
                html`${budgetInput('organization-budget', html`Organization budget`, summary.organization_budget)}
                  <button type="submit">Save organization budget</button>`,
              )}
              ${
                summary.organization_budget !== null
                  ? postForm(
                      `${CONSOLE_PATHS.budgets}/remove`,
                      visitor.csrf,
                      html`<button type="submit" class="secondary">Remove budget<span class="vh"> of the organization</span></button>`,
                    )
                  : ''
              }`
            : ''
        }
        <h2>Key family budgets</h2>
        ${
          families.length
            ? stackingTable(
                'Key family budgets',
                admin ? ['Key family', 'Id', 'Remaining', 'Budget'] : ['Key family', 'Id', 'Remaining'],
                shown.map((f) => familyRow(f, summary.family_budgets[f.familyId] ?? null, visitor)),
              )
            : html`<p>Your organization has no API key yet.</p>`
        }
        ${pager(CONSOLE_PATHS.budgets, 'Pages of key families', page, more)}`,
    },
    status,
  );
}

async function budgetChange(ctx: Context, visitor: ConsoleVisitor, deps: ConsoleDeps, familyReads: FamilyReads, change: () => Promise<string>): Promise<void> {
  requireAdmin(visitor);
  await keepingTheForm(
    async () => seeOtherSaying(ctx, CONSOLE_PATHS.budgets, await change()),
    (message, status) => sendBudgetsPage(ctx, visitor, deps, familyReads, message, status),
  );
}

export function mountBudgetsPage(pages: ConsolePages): void {
  // One cache per mounted console (the composition root builds the router once per process).
  const familyReads: FamilyReads = new ReadCache<FamilyRow[]>(1_000);
  pages.get(CONSOLE_PATHS.budgets, (ctx, visitor, deps) => sendBudgetsPage(ctx, visitor, deps, familyReads, null));

  pages.post(CONSOLE_PATHS.budgets, (ctx, visitor, form, deps) =>
    budgetChange(ctx, visitor, deps, familyReads, async () => {
      const body = { family_id: form.get('family_id') ?? '', budget: form.get('budget') ?? '' };
      await deps.road.run(ctx, visitor, 'console.budgets.set', { body });
      return DONE.set;
    }),
  );

  pages.post(`${CONSOLE_PATHS.budgets}/remove`, (ctx, visitor, form, deps) =>
    budgetChange(ctx, visitor, deps, familyReads, async () => {
      await deps.road.run(ctx, visitor, 'console.budgets.remove', { body: { family_id: form.get('family_id') ?? '' } });
      return DONE.removed;
    }),
  );
}
