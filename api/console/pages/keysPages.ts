import type { Stores } from '../../../core/deps';
import type { Context } from 'koa';
import { findOrgKey, pageOfApiKeys, type KeyView } from '../../../core/keys/apiKeys';
import { requireWithinOwn } from '../../../core/keys/handingOn';
import { KEY_EXPIRY_CHOICES, OLD_KEY_END_CHOICES } from '../../../core/keys/keyLifetimes';
import { KEY_NAME_MAX_LENGTH } from '../../../core/keys/keyNames';
import { ALL_PERMISSIONS } from '../../../core/keys/permissions';
import { notFound } from '../../../core/problems';
import type { RotationResult } from '../../../core/keys/apiKeys';
import { html, type SafeHtml } from '../../views/safeHtml';
import { requireAdmin } from '../consoleErrors';
import { dateText, readOnlyNote, secretBlock, seeOtherSaying, sendConsolePage, stackingTable, type TableCell } from '../consoleLayout';
import { mayChange } from '../pageAccess';
import { actorNames, type ActorName } from '../actorNames';
import { currentKeysOf, type CurrentKey } from '../../../core/keys/keyFamilies';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import { CONSOLE_PATHS, keyPath } from '../consolePaths';
import { requireSudoToOpen, type ConsoleVisitor } from '../consoleVisitor';
import { permissionCheckboxes, postForm, postedPermissions, selectInput, textInput } from '../formControls';
import { pageNumber, pager } from '../listPages';
import { applicationNamesOf, choiceLabel, workspaceNamesOf } from '../tenancyNames';
import type { CreatedKey } from '../operations/keyOperations';

/**
 * "API keys" and its forms (DECISIONS.md "Organization console"). Creating and rotating need sudo
 * mode (sudoOperations.ts), asked for when the form is opened and checked again by the console
 * road when it is posted; revoking does not.
 * Only admins write; members see the list without the links. A key's pages look the key up
 * before the role is judged, so an id of another organization is the same 404 for everyone.
 */
export const KEYS_PER_PAGE = 50;

/** What the table knows beside the key: names of workspaces and creators, and each family's current key. */
interface KeyNames {
  workspaces: Map<string, string>;
  actors: Map<string, ActorName>;
  current: Map<string, CurrentKey>;
}

async function namesForKeys(stores: Stores, orgId: string, keys: readonly KeyView[]): Promise<KeyNames> {
  const [workspaces, actors, current] = await Promise.all([
    workspaceNamesOf(stores, orgId),
    actorNames(
      stores,
      orgId,
      keys.map((k) => k.created_by),
    ),
    currentKeysOf(
      stores,
      orgId,
      keys.map((k) => k.family_id),
    ),
  ]);
  return { workspaces: new Map(workspaces.map((w) => [w.id, w.name])), actors, current };
}

/** An active key that a rotation replaced: its family's current key is another one. */
function successorOf(k: KeyView, names: KeyNames): CurrentKey | null {
  const current = names.current.get(k.family_id);
  return k.status === 'active' && current && current.key_id !== k.key_id ? current : null;
}

function statusCell(k: KeyView, successor: CurrentKey | null): SafeHtml {
  if (successor) {
    return html`Replaced: works until ${dateText(k.expires_at)}, then only <strong>${successor.name}</strong> (<code>${successor.display_prefix}…</code>)`;
  }
  return html`${k.status}`;
}

function keyRow(k: KeyView, admin: boolean, names: KeyNames): TableCell[] {
  const successor = successorOf(k, names);
  const creator = k.created_by ? names.actors.get(k.created_by) : undefined;
  return [
    { body: html`<strong>${k.name}</strong><br /><code>${k.display_prefix}…</code> <span class="id">${k.key_id}</span>`, className: 'wrap name' },
    { body: html`${k.scopes.map((s, i) => html`${i ? ', ' : ''}<code>${s}</code>`)}`, className: 'wrap' },
    { body: names.workspaces.get(k.workspace_id) ?? k.workspace_id, className: 'wrap' },
    { body: html`${dateText(k.created_at)}<br /><span class="note">by ${creator?.label ?? '—'}</span>`, className: 'wrap' },
    { body: k.last_used_at ? dateText(k.last_used_at) : 'Never' },
    { body: k.expires_at ? dateText(k.expires_at) : 'Never' },
    { body: statusCell(k, successor), className: 'wrap' },
    {
      body:
        admin && k.status === 'active'
          ? html`${successor ? '' : html`<a href="${keyPath(k.key_id, 'rotate')}" aria-label="Rotate ${k.name}">Rotate</a>`}
              <a href="${keyPath(k.key_id, 'revoke')}" aria-label="Revoke ${k.name}">Revoke</a>`
          : '',
      className: 'actions',
    },
  ];
}

function newKeyPage(
  ctx: Context,
  visitor: ConsoleVisitor,
  title: string,
  key: { key: string; name: string; key_id: string },
  status: number,
  note: SafeHtml,
): void {
  sendConsolePage(
    ctx,
    {
      title,
      visitor: visitor.layout,
      current: CONSOLE_PATHS.keys,
      status: html`The key <strong>${key.name}</strong> (<code>${key.key_id}</code>) is ready. Copy it now: it is shown only this once.`,
      body: html`${secretBlock(key.key, 'The new API key')} ${note}
        <p><a href="${CONSOLE_PATHS.keys}">Back to API keys</a></p>`,
    },
    status,
  );
}

/** The request's key, of the visitor's organization; another organization's reads as absent. */
async function keyOf(ctx: Context, visitor: ConsoleVisitor, { stores, now }: Pick<ConsoleDeps, 'stores' | 'now'>): Promise<KeyView> {
  const key = await findOrgKey(stores, visitor.user.orgId, String(ctx.params.key_id), now());
  if (!key) throw notFound('key');
  return key;
}

function formBody(form: URLSearchParams, fields: string[], lists: string[] = []): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of fields) body[f] = form.get(f) ?? '';
  for (const l of lists) body[l] = form.getAll(l);
  return body;
}

export function mountKeysPages(pages: ConsolePages): void {
  pages.list(CONSOLE_PATHS.keys, async (ctx, visitor, { stores, now }) => {
    const page = pageNumber(ctx.query.page);
    const { keys, more } = await pageOfApiKeys(stores, visitor.user.orgId, page, KEYS_PER_PAGE, now());
    const names = await namesForKeys(stores, visitor.user.orgId, keys);
    const admin = mayChange(visitor);
    sendConsolePage(ctx, {
      title: 'API keys',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.keys,
      body: html`${admin ? html`<p><a class="button" href="${CONSOLE_PATHS.newKey}">Create an API key</a></p>` : readOnlyNote(visitor)}
      ${
        keys.length === 0 && page === 1
          ? html`<p>Your organization has no API key yet.</p>`
          : stackingTable(
              'API keys',
              ['Key', 'Permissions', 'Workspace', 'Created', 'Last used', 'Expires', 'Status', 'Actions'],
              keys.map((k) => keyRow(k, admin, names)),
            )
      }
      ${pager(CONSOLE_PATHS.keys, 'Pages of keys', page, more)}`,
    });
  });

  pages.get(CONSOLE_PATHS.newKey, async (ctx, visitor, { now, stores }) => {
    requireAdmin(visitor);
    if (!(await requireSudoToOpen(ctx, stores, visitor, 'console.keys.create', CONSOLE_PATHS.newKey, now()))) return;
    const [workspaces, applications] = await Promise.all([workspaceNamesOf(stores, visitor.user.orgId), applicationNamesOf(stores, visitor.user.orgId)]);
    const own = ALL_PERMISSIONS.filter((p) => visitor.principal.scopes.includes(p));
    sendConsolePage(ctx, {
      title: 'Create an API key',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.keys,
      body: postForm(
        CONSOLE_PATHS.newKey,
        visitor.csrf,
        html`${textInput('name', 'Name', { maxLength: KEY_NAME_MAX_LENGTH })}
          ${selectInput(
            'workspace',
            'Workspace',
            workspaces.map((w) => ({ value: w.id, label: choiceLabel(w) })),
            visitor.user.workspaceId,
          )}
          ${selectInput(
            'application',
            'Application',
            applications.map((a) => ({ value: a.id, label: choiceLabel(a) })),
            applications[0]?.id ?? '',
          )}
          <p class="note">The key is held to the limits set on its application.</p>
          ${permissionCheckboxes('Permissions', 'scopes', own, [])}
          <p class="note">A key can have only permissions you have yourself.</p>
          ${selectInput('expires', 'Expires', KEY_EXPIRY_CHOICES, 'never')}
          <button type="submit">Create key</button>`,
      ),
    });
  });

  pages.post(CONSOLE_PATHS.newKey, async (ctx, visitor, form, { road }) => {
    requireAdmin(visitor);
    const own = ALL_PERMISSIONS.filter((p) => visitor.principal.scopes.includes(p));
    const body = { ...formBody(form, ['name', 'workspace', 'application', 'expires']), scopes: postedPermissions(form, 'scopes', own) };
    const result = await road.run(ctx, visitor, 'console.keys.create', { body });
    const created = result.body as CreatedKey;
    newKeyPage(ctx, visitor, 'Your new API key', created, 201, html``);
  });

  pages.get('/console/keys/:key_id/rotate', async (ctx, visitor, deps) => {
    const { now } = deps;
    const key = await keyOf(ctx, visitor, deps);
    requireAdmin(visitor);
    // Refused before the form: the post would be refused the same way (core/keys/handingOn.ts).
    requireWithinOwn(visitor.principal.scopes, { kind: 'key_rotated', scopes: key.scopes });
    if (!(await requireSudoToOpen(ctx, deps.stores, visitor, 'console.keys.rotate', keyPath(key.key_id, 'rotate'), now()))) return;
    sendConsolePage(ctx, {
      title: 'Rotate API key',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.keys,
      body: html`<p>
          A new key replaces <strong>${key.name}</strong> (<code>${key.display_prefix}…</code>), with the same name, workspace and permissions. The old key
          keeps working until the time you choose, so you can deploy the new one first.
        </p>
        ${postForm(
          keyPath(key.key_id, 'rotate'),
          visitor.csrf,
          html`${selectInput('old_key_ends', 'Old key stops working', OLD_KEY_END_CHOICES, '24h')} <button type="submit">Rotate key</button>`,
        )}`,
    });
  });

  pages.post('/console/keys/:key_id/rotate', async (ctx, visitor, form, deps) => {
    const { road } = deps;
    const keyId = (await keyOf(ctx, visitor, deps)).key_id;
    requireAdmin(visitor);
    const result = await road.run(ctx, visitor, 'console.keys.rotate', { params: { key_id: keyId }, body: formBody(form, ['old_key_ends']) });
    const rotated = result.body as RotationResult;
    newKeyPage(
      ctx,
      visitor,
      'Your new API key',
      rotated,
      201,
      html`<p>
        The old key of <strong>${rotated.name}</strong> (<span class="id">${rotated.replaced_key_id}</span>) stops working at
        ${dateText(rotated.replaced_key_expires_at)}.
      </p>`,
    );
  });

  pages.get('/console/keys/:key_id/revoke', async (ctx, visitor, deps) => {
    const key = await keyOf(ctx, visitor, deps);
    requireAdmin(visitor);
    sendConsolePage(ctx, {
      title: 'Revoke API key',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.keys,
      body: html`<p>
          Revoking <strong>${key.name}</strong> (<code>${key.display_prefix}…</code>, <code>${key.key_id}</code>) refuses its very next request. This cannot be
          undone.
        </p>
        ${postForm(keyPath(key.key_id, 'revoke'), visitor.csrf, html`<button type="submit" class="danger">Revoke key</button>`)}`,
    });
  });

  pages.post('/console/keys/:key_id/revoke', async (ctx, visitor, _form, deps) => {
    const { road } = deps;
    const key = await keyOf(ctx, visitor, deps);
    requireAdmin(visitor);
    await road.run(ctx, visitor, 'console.keys.revoke', { params: { key_id: key.key_id }, body: {} });
    seeOtherSaying(ctx, CONSOLE_PATHS.keys, `The key ${key.name} (${key.display_prefix}…) is revoked: its next request is refused.`);
  });
}
