import type { Context } from 'koa';
import { decodeCursor, encodeCursor, endpointListScope } from '../../../core/webhooks/deliveryCursor';
import type { EndpointRecord } from '../../../core/webhooks/store/records';
import { listEndpoints } from '../../../core/webhooks/webhookEndpoints';
import { hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { dateText, readOnlyNote, secretBlock, seeOtherSaying, sendConsolePage } from '../consoleLayout';
import { mayChange } from '../pageAccess';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import type { ConsoleVisitor } from '../consoleVisitor';
import { WEBHOOK_OPERATION_PATHS } from '../operations/webhookOperations';
import { eventPath } from './webhookDeliveriesPages';
import type { SentTestEvent } from '../../../core/webhooks/testEvent';
import { actingIn, chosenWorkspace, endpointWorkspace, requireOrgWorkspace, workspacesOf, type WorkspaceChoice } from '../webhooks/consoleWorkspaces';
import { workspaceSwitch } from '../webhooks/workspaceSwitch';
import { cursorPager } from '../listPages';

/**
 * `/console/webhooks` "Webhooks" (DECISIONS.md "Organization console"): a workspace's endpoints
 * with their state, and for an admin the forms that register, re-point, disable, enable, retire
 * and rotate the secret of one. Each form posts to the console twin of the /v1 operation
 * (operations/webhookOperations.ts); a new signing secret is shown once, on its own page.
 */
const ENDPOINTS_PER_PAGE = 20;

const endpointPath = (path: string, endpointId: string) => path.replace(':id', encodeURIComponent(endpointId));
const webhooksOf = (workspaceId: string) => `${CONSOLE_PATHS.webhooks}?workspace=${encodeURIComponent(workspaceId)}`;

function rotationText(doc: EndpointRecord, now: Date): string {
  if (doc.rotationEndsAt && doc.rotationEndsAt.getTime() > now.getTime()) {
    return `Under way: the previous secret also signs until ${dateText(doc.rotationEndsAt)}`;
  }
  return 'None under way';
}

function endpointForms(doc: EndpointRecord, csrf: string): SafeHtml {
  const id = doc._id;
  const form = (action: string, body: SafeHtml, confirm?: string) =>
    html`<form method="post" action="${endpointPath(action, id)}" ${confirm ? html`data-confirm="${confirm}"` : ''}>
      ${hidden('csrf_token', csrf)} ${body}
    </form>`;
  const enabled = doc.state === 'active';
  return html`${form(
      WEBHOOK_OPERATION_PATHS.update,
      html`<label for="url-${id}">New URL</label>
        <input id="url-${id}" name="url" type="url" inputmode="url" required maxlength="2048" autocomplete="off" placeholder="https://" />
        <button type="submit">Save URL</button>`,
    )}
    <div class="actions">
      ${form(
        WEBHOOK_OPERATION_PATHS.update,
        html`${hidden('state', enabled ? 'disabled' : 'active')}<button type="submit" class="secondary">${enabled ? 'Disable' : 'Enable'}</button>`,
      )}
      ${enabled ? form(WEBHOOK_OPERATION_PATHS.sendTestEvent, html`<button type="submit" class="secondary">Send test event</button>`) : ''}
      ${form(WEBHOOK_OPERATION_PATHS.rotateSecret, html`<button type="submit" class="secondary">Rotate secret</button>`)}
      ${form(
        WEBHOOK_OPERATION_PATHS.retire,
        html`<button type="submit" class="danger">Retire</button>`,
        'Retire this endpoint? It stops receiving events for good.',
      )}
    </div>`;
}

function endpointSection(doc: EndpointRecord, visitor: ConsoleVisitor, now: Date): SafeHtml {
  const admin = mayChange(visitor);
  return html`<section class="endpoint" aria-labelledby="ep-${doc._id}">
    <h2 id="ep-${doc._id}">Endpoint <code>${doc._id}</code></h2>
    <dl class="facts">
      <dt>State</dt>
      <dd><strong class="state-${doc.state}">${doc.state}</strong></dd>
      <dt>URL</dt>
      <dd><code>${doc.url}</code></dd>
      <dt>Created</dt>
      <dd>${dateText(doc.createdAt)}</dd>
      <dt>Last changed</dt>
      <dd>${dateText(doc.updatedAt)}</dd>
      <dt>Secret rotation</dt>
      <dd>${rotationText(doc, now)}</dd>
    </dl>
    ${admin && doc.state !== 'retired' ? endpointForms(doc, visitor.csrf) : ''}
  </section>`;
}

function registerForm(visitor: ConsoleVisitor, workspaceId: string): SafeHtml {
  return html`<section aria-labelledby="register">
    <h2 id="register">Register an endpoint</h2>
    <p>Events of this workspace (<code>job.completed</code>) are sent to it, signed with a secret shown once after you register.</p>
    <form method="post" action="${WEBHOOK_OPERATION_PATHS.register}">
      ${hidden('csrf_token', visitor.csrf)} ${hidden('workspace', workspaceId)}
      <label for="endpoint-url">Endpoint URL</label>
      <input id="endpoint-url" name="url" type="url" inputmode="url" required maxlength="2048" autocomplete="off" placeholder="https://" />
      <button type="submit">Register endpoint</button>
    </form>
  </section>`;
}

function secretPage(ctx: Context, visitor: ConsoleVisitor, secret: { secret: string; endpoint_id: string; workspace: string; note: string }): void {
  sendConsolePage(ctx, {
    title: 'Your new signing secret',
    visitor: visitor.layout,
    current: CONSOLE_PATHS.webhooks,
    status: html`The signing secret of endpoint <code>${secret.endpoint_id}</code>. Copy it now: it is shown only this once.`,
    body: html`${secretBlock(secret.secret, 'The new signing secret')}
      <p>${secret.note}</p>
      <p><a href="${webhooksOf(secret.workspace)}">Back to Webhooks</a></p>`,
  });
}

async function endpointsPage(ctx: Context, visitor: ConsoleVisitor, { purposeKeys, stores }: ConsoleDeps): Promise<void> {
  const orgId = visitor.user.orgId;
  const choices: WorkspaceChoice[] = await workspacesOf(stores, orgId);
  const workspaceId = chosenWorkspace(choices, ctx.query.workspace, visitor.user.workspaceId);
  const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
  const cursorScope = endpointListScope(workspaceId);
  const { docs, more } = await listEndpoints(
    stores,
    { orgId, workspaceId },
    { limit: ENDPOINTS_PER_PAGE, after: decodeCursor(purposeKeys, cursorScope, cursor) },
  );
  const last = docs[docs.length - 1];
  const next = more && last ? encodeCursor(purposeKeys, cursorScope, { createdAt: last.createdAt, id: last._id }) : null;
  const now = new Date();
  const hasActive = docs.some((d) => d.state === 'active');
  const admin = mayChange(visitor);
  sendConsolePage(ctx, {
    title: 'Webhooks',
    visitor: visitor.layout,
    current: CONSOLE_PATHS.webhooks,
    body: html`${readOnlyNote(visitor)} ${workspaceSwitch(CONSOLE_PATHS.webhooks, choices, workspaceId)}
      <p><a href="${CONSOLE_PATHS.webhooks}/deliveries?workspace=${encodeURIComponent(workspaceId)}">Webhook deliveries</a></p>
      ${docs.length === 0 && !cursor ? html`<p>This workspace has no webhook endpoint yet.</p>` : ''}
      ${admin && !hasActive && !cursor ? registerForm(visitor, workspaceId) : ''}
      ${admin && hasActive ? html`<p class="note">A workspace has one active endpoint: disable or retire it to register another.</p>` : ''}
      ${docs.map((d) => endpointSection(d, visitor, now))}
      ${cursorPager('Pages of endpoints', cursor ? webhooksOf(workspaceId) : null, next ? `${webhooksOf(workspaceId)}&cursor=${encodeURIComponent(next)}` : null)}`,
  });
}

export function mountWebhooksPage(pages: ConsolePages): void {
  pages.list(CONSOLE_PATHS.webhooks, endpointsPage);

  pages.post(WEBHOOK_OPERATION_PATHS.register, async (ctx, visitor, form, { road, stores }) => {
    const workspaceId = await requireOrgWorkspace(stores, visitor.user.orgId, form.get('workspace'));
    const result = await road.run(ctx, actingIn(visitor, workspaceId), 'console.webhooks.register', { body: { url: form.get('url') ?? '' } });
    const created = result.body as { endpoint: { endpoint_id: string }; secret: string };
    secretPage(ctx, visitor, {
      secret: created.secret,
      endpoint_id: created.endpoint.endpoint_id,
      workspace: workspaceId,
      note: 'Your receiver checks the webhook-signature header of each delivery with it.',
    });
  });

  pages.post(WEBHOOK_OPERATION_PATHS.update, async (ctx, visitor, form, { road, stores }) => {
    const id = String(ctx.params.id);
    const workspaceId = await endpointWorkspace(stores, visitor.user.orgId, id);
    const state = form.get('state');
    const body = state !== null ? { state } : { url: form.get('url') ?? '' };
    await road.run(ctx, actingIn(visitor, workspaceId), 'console.webhooks.update', { params: { id }, body });
    const done =
      state === 'disabled'
        ? 'The endpoint is disabled: nothing is sent to it until you enable it.'
        : state === 'active'
          ? 'The endpoint is enabled: the next event goes to it.'
          : 'The endpoint URL is saved: the next attempt goes to it.';
    seeOtherSaying(ctx, webhooksOf(workspaceId), done);
  });

  pages.post(WEBHOOK_OPERATION_PATHS.retire, async (ctx, visitor, _form, { road, stores }) => {
    const id = String(ctx.params.id);
    const workspaceId = await endpointWorkspace(stores, visitor.user.orgId, id);
    await road.run(ctx, actingIn(visitor, workspaceId), 'console.webhooks.retire', { params: { id }, body: {} });
    seeOtherSaying(ctx, webhooksOf(workspaceId), 'The endpoint is retired: nothing is sent to it any more.');
  });

  pages.post(WEBHOOK_OPERATION_PATHS.sendTestEvent, async (ctx, visitor, _form, { road, stores }) => {
    const id = String(ctx.params.id);
    const workspaceId = await endpointWorkspace(stores, visitor.user.orgId, id);
    const result = await road.run(ctx, actingIn(visitor, workspaceId), 'console.webhooks.send_test_event', { params: { id }, body: {} });
    const sent = result.body as SentTestEvent;
    seeOtherSaying(
      ctx,
      eventPath(sent.event_id),
      `Test event sent: a signed job.completed of test job ${sent.job_id} (no people, no credits) is on its way to ${sent.url}; its attempts appear below as they are made.`,
    );
  });

  pages.post(WEBHOOK_OPERATION_PATHS.rotateSecret, async (ctx, visitor, _form, { road, stores }) => {
    const id = String(ctx.params.id);
    const workspaceId = await endpointWorkspace(stores, visitor.user.orgId, id);
    const result = await road.run(ctx, actingIn(visitor, workspaceId), 'console.webhooks.rotate_secret', { params: { id }, body: {} });
    const rotated = result.body as { secret: string; previous_secret_expires_at: string };
    secretPage(ctx, visitor, {
      secret: rotated.secret,
      endpoint_id: id,
      workspace: workspaceId,
      note: `The previous secret keeps signing until ${dateText(rotated.previous_secret_expires_at)}: deliveries until then carry both signatures.`,
    });
  });
}
