import type { Context } from 'koa';
import { reportLimitsUnder } from '../../../core/limits/limitReport';
import { OPERATIONS, type ScopeType } from '../../../core/limits/limitTable';
import { organizationLimits, readLimitSettings, setByOf } from '../../../core/limits/limitSettings';
import type { LimitOverride } from '../../../core/limits/limitSettingsRecord';
import type { LimitEntry } from '../../../core/limits/operationalLimits';
import { errorNote, hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { requireAdmin } from '../consoleErrors';
import { dateText, readOnlyNote, scrollingTable, seeOtherSaying, sendConsolePage } from '../consoleLayout';
import { mayChange } from '../pageAccess';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import type { ConsoleVisitor } from '../consoleVisitor';
import { groupedSelectInput, postForm, selectInput, textInput } from '../formControls';
import { keepingTheForm } from '../formRefusals';
import { pageNumber, pager } from '../listPages';
import { limitTargetsOf, type LimitTargets } from '../limitTargets';

/**
 * `/console/limits` "Limits" (DECISIONS.md "Organization console"): the entries of
 * GET /v1/operational-limits for the organization (core/limits/limitReport.ts), the request
 * rate and in-flight limit the operator sets, the organization's caps and blocks with "Clear"
 * for those it set, and the form "Set a cap" whose "Block" button blocks instead.
 */
export const LIMIT_ENTRIES_PER_PAGE = 60;

const APPLIES_TO: ReadonlyArray<{ value: ScopeType; label: string }> = [
  { value: 'organization', label: 'Organization' },
  { value: 'application', label: 'Application' },
  { value: 'key_family', label: 'Key family' },
  { value: 'key', label: 'Key' },
];

const scopeLabel = (type: string) => APPLIES_TO.find((a) => a.value === type)?.label ?? type;

/** What the form showed when it was posted, to show it again beside the refusal. */
export interface CapFormValues {
  operation?: string;
  applies_to?: string;
  target?: string;
  requests_per_minute?: string;
}

/** What a change did, said on the page it returns to. */
const DONE = {
  cap: 'The cap is set. It applies to the next request.',
  block: 'The operation is blocked for that scope.',
  clear: 'Cleared: the standard limit applies again.',
};

function figure(n: number | null): string {
  return n === null ? '—' : String(n);
}

/** A target by name, its id beneath; the organization's own rows need neither. */
function targetCell(type: string, id: string, names: ReadonlyMap<string, string>): SafeHtml {
  if (type === 'organization') return html`<td>Your organization</td>`;
  const name = names.get(id);
  return html`<td class="wrap">${name ? html`${name}<br />` : ''}<span class="id">${id}</span></td>`;
}

function entryRow(e: LimitEntry, names: ReadonlyMap<string, string>): SafeHtml {
  return html`<tr>
    <td class="wrap"><code>${e.operation}</code></td>
    <td>${scopeLabel(e.scope.type)}</td>
    ${targetCell(e.scope.type, e.scope.id, names)}
    <td>${e.status}</td>
    <td>${e.source}</td>
    <td>${figure(e.requests_per_second)}</td>
    <td>${figure(e.requests_per_minute)}</td>
    <td>${figure(e.max_concurrency)}</td>
    <td>${figure(e.standard_requests_per_minute)}</td>
  </tr>`;
}

function overrideRow(o: LimitOverride, visitor: ConsoleVisitor, names: ReadonlyMap<string, string>): SafeHtml {
  const customers = setByOf(o) === 'customer';
  return html`<tr>
    <td class="wrap"><code>${o.operation}</code></td>
    <td>${scopeLabel(o.scopeType)}</td>
    ${targetCell(o.scopeType, o.scopeId, names)}
    <td>${o.kind === 'block' ? 'Blocked' : `${o.requestsPerMinute} per minute`}</td>
    <td>${customers ? 'Your organization' : 'The service operator'}</td>
    <td>${dateText(o.updatedAt)}</td>
    <td class="actions">
      ${
        mayChange(visitor) && customers
          ? postForm(
              `${CONSOLE_PATHS.limits}/clear`,
              visitor.csrf,
              html`${hidden('operation', o.operation)} ${hidden('applies_to', o.scopeType)} ${hidden('target', o.scopeId)}
                <button type="submit" class="secondary">
                  Clear<span class="vh">
                    the ${o.kind === 'block' ? 'block' : 'cap'} on ${o.operation} for ${scopeLabel(o.scopeType)} ${names.get(o.scopeId) ?? o.scopeId}</span
                  >
                </button>`,
            )
          : customers
            ? ''
            : html`<span class="note">set by the service operator</span>`
      }
    </td>
  </tr>`;
}

function capForm(visitor: ConsoleVisitor, values: CapFormValues, targets: LimitTargets): SafeHtml {
  return html`<h2 id="set-a-cap">Set a cap</h2>
    ${postForm(
      CONSOLE_PATHS.limits,
      visitor.csrf,
      html`${selectInput(
          'operation',
          'Operation',
          OPERATIONS.map((o) => ({ value: o, label: o })),
          values.operation,
        )}
        ${selectInput('applies_to', 'Applies to', APPLIES_TO, values.applies_to ?? 'organization')}
        ${groupedSelectInput('target', 'Target', { value: '', label: 'None: the whole organization' }, targets.groups, values.target, 'target-note')}
        <p class="note" id="target-note">
          The application, key family or key the cap applies to, of the kind chosen in "Applies to"; ignored for Organization.
        </p>
        ${textInput('requests_per_minute', 'Requests per minute', { value: values.requests_per_minute ?? '', required: false, maxLength: 9 })}
        <p class="note">A cap must be below the operation's standard requests per minute (the last column of the table below).</p>
        <p>
          <button type="submit">Set cap</button>
          <button type="submit" class="danger" formaction="${CONSOLE_PATHS.limits}/block">Block</button>
        </p>`,
    )}`;
}

export async function sendLimitsPage(
  ctx: Context,
  visitor: ConsoleVisitor,
  { config, now, stores }: ConsoleDeps,
  form: { values: CapFormValues; message: string | null } = { values: {}, message: null },
  status = 200,
): Promise<void> {
  const orgId = visitor.user.orgId;
  const [{ entries, settings }, targets] = await Promise.all([
    readLimitSettings(stores, orgId).then(async (settings) => ({
      settings,
      entries: await reportLimitsUnder(stores, settings, orgId, [{ type: 'organization', id: orgId }], {}, config.limits.leaseTtlSeconds),
    })),
    limitTargetsOf(stores, orgId, now()),
  ]);
  const page = pageNumber(ctx.query.page);
  const shown = entries.slice((page - 1) * LIMIT_ENTRIES_PER_PAGE, page * LIMIT_ENTRIES_PER_PAGE);
  const more = entries.length > page * LIMIT_ENTRIES_PER_PAGE;
  const org = organizationLimits(settings);
  const overrides = settings.overrides.filter((o) => o.kind !== 'cleared');
  const admin = mayChange(visitor);
  sendConsolePage(
    ctx,
    {
      title: 'Limits',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.limits,
      body: html`${errorNote(form.message)} ${readOnlyNote(visitor)}
        <h2>Request rate and in-flight limit</h2>
        <dl class="figures">
          <dt>Request rate</dt>
          <dd>${org.requestsPerSecond} requests per second, set by the service operator</dd>
          <dt>In-flight limit</dt>
          <dd>${org.maxConcurrency} requests at a time, set by the service operator</dd>
        </dl>
        <h2>Caps and blocks</h2>
        ${
          overrides.length
            ? scrollingTable(
                'Caps and blocks',
                ['Operation', 'Applies to', 'Target', 'Limit', 'Set by', 'Changed', 'Actions'],
                overrides.map((o) => overrideRow(o, visitor, targets.names)),
              )
            : html`<p>No cap or block is set: the standard limits apply.</p>`
        }
        ${admin ? capForm(visitor, form.values, targets) : ''}
        <h2>Limits in force</h2>
        <p class="note">As <code>GET /v1/operational-limits</code> reports them, for the organization and every scope that has a cap or block.</p>
        ${scrollingTable(
          'Limits in force',
          ['Operation', 'Applies to', 'Target', 'Status', 'Source', 'Per second', 'Per minute', 'In flight', 'Standard a minute'],
          shown.map((e) => entryRow(e, targets.names)),
        )}
        ${pager(CONSOLE_PATHS.limits, 'Pages of limits', page, more)}`,
    },
    status,
  );
}

function formValues(form: URLSearchParams): CapFormValues {
  return {
    operation: form.get('operation') ?? undefined,
    applies_to: form.get('applies_to') ?? undefined,
    target: form.get('target') ?? undefined,
    requests_per_minute: form.get('requests_per_minute') ?? undefined,
  };
}

function capBody(form: URLSearchParams): Record<string, string> {
  const values = formValues(form);
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

/** A refusal of the form is shown on the page again, with what was typed kept. */
function withFormKept(ctx: Context, visitor: ConsoleVisitor, deps: ConsoleDeps, form: URLSearchParams, change: () => Promise<void>): Promise<void> {
  return keepingTheForm(change, (message, status) => sendLimitsPage(ctx, visitor, deps, { values: formValues(form), message }, status));
}

export function mountLimitsPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.limits, (ctx, visitor, deps) => sendLimitsPage(ctx, visitor, deps));

  pages.post(CONSOLE_PATHS.limits, async (ctx, visitor, form, deps) => {
    requireAdmin(visitor);
    await withFormKept(ctx, visitor, deps, form, async () => {
      await deps.road.run(ctx, visitor, 'console.limits.set_cap', { body: capBody(form) });
      seeOtherSaying(ctx, CONSOLE_PATHS.limits, DONE.cap);
    });
  });

  pages.post(`${CONSOLE_PATHS.limits}/block`, async (ctx, visitor, form, deps) => {
    requireAdmin(visitor);
    await withFormKept(ctx, visitor, deps, form, async () => {
      await deps.road.run(ctx, visitor, 'console.limits.block', { body: capBody(form) });
      seeOtherSaying(ctx, CONSOLE_PATHS.limits, DONE.block);
    });
  });

  pages.post(`${CONSOLE_PATHS.limits}/clear`, async (ctx, visitor, form, deps) => {
    requireAdmin(visitor);
    const { requests_per_minute: _ignored, ...body } = capBody(form);
    await withFormKept(ctx, visitor, deps, form, async () => {
      await deps.road.run(ctx, visitor, 'console.limits.clear', { body });
      seeOtherSaying(ctx, CONSOLE_PATHS.limits, DONE.clear);
    });
  });
}
