import type { Context } from 'koa';
import { notFound } from '../../../core/problems';
import { findPasskeyOf, passkeyRegistrationOptions, passkeysOf } from '../../../core/users/passkeyCeremonies';
import type { PasskeyStores } from '../../../core/users/passkeysStore';
import { hostAllowsPasskeys, PASSKEY_NAME_MAX, relyingPartyOf } from '../../../core/users/passkeys';
import type { PasskeyRecord } from '../../../core/users/passkeysStore';
import { errorNote, hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { setPageHeaders } from '../../views/pageSecurity';
import { dateText, seeOtherSaying, sendConsolePage, stackingTable, type TableCell } from '../consoleLayout';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import type { ConsoleVisitor } from '../consoleVisitor';
import { textInput } from '../formControls';
import { PASSKEYS_PATH, passkeyRemovePath, passkeyRenamePath } from '../operations/passkeyOperations';
import { PASSKEY_SCRIPT_PATHS } from '../passkeyAssets';
import { keepingTheForm } from '../formRefusals';

/**
 * The "Passkeys" section of the Security page (DECISIONS.md "Accounts, settings …"): the person's
 * passkeys with "Rename" (its own page) and "Remove" (sudo mode) each, and "Add a passkey" with an
 * optional "Passkey name".
 * Adding runs the WebAuthn ceremony in the browser (passkeyAssets.ts), so it needs JavaScript; the
 * section says so when it is off, and when the console's host name cannot carry passkeys.
 */
export const PASSKEY_OPTIONS_PATH = `${PASSKEYS_PATH}/options`;

/** What the section shows: a refusal of the last "Add a passkey", with the name typed. */
export interface PasskeysSectionState {
  message?: string;
  typedName?: string;
}

function passkeyRow(p: PasskeyRecord, csrf: string): TableCell[] {
  return [
    { className: 'wrap', body: p.name },
    { className: 'when', body: dateText(p.createdAt) },
    { className: 'when', body: p.lastUsedAt ? dateText(p.lastUsedAt) : 'Never' },
    {
      className: 'actions',
      ownLabel: true,
      body: html`<a href="${passkeyRenamePath(p._id)}" aria-label="Rename ${p.name}">Rename</a>
        <form method="post" action="${passkeyRemovePath(p._id)}" data-confirm="Remove the passkey ${p.name}?">
          ${hidden('csrf_token', csrf)}${hidden('passkey_id', p._id)}<button type="submit" class="danger" aria-label="Remove ${p.name}">Remove</button>
        </form>`,
    },
  ];
}

export async function passkeysSection(stores: PasskeyStores, visitor: ConsoleVisitor, authUrl: string, state: PasskeysSectionState = {}): Promise<SafeHtml> {
  const passkeys = await passkeysOf(stores, visitor.user._id);
  const usable = hostAllowsPasskeys(authUrl);
  return html`<section aria-labelledby="passkeys-heading">
    <h2 id="passkeys-heading">Passkeys</h2>
    <p>A passkey signs you in with your device's screen lock or a security key instead of your password, and cannot be phished.</p>
    ${
      passkeys.length === 0
        ? html`<p>You have no passkeys.</p>`
        : stackingTable(
            'Your passkeys',
            ['Name', 'Added', 'Last used', 'Actions'],
            passkeys.map((p) => passkeyRow(p, visitor.csrf)),
          )
    }
    ${
      usable
        ? ''
        : html`<p class="note">
            Passkeys are bound to a host name, and this console is served on an IP address (${new URL(authUrl).host}): browsers offer no passkeys here.
          </p>`
    }
    ${errorNote(state.message)}
    <form method="post" action="${PASSKEYS_PATH}" data-passkey="register" data-options="${PASSKEY_OPTIONS_PATH}">
      ${hidden('csrf_token', visitor.csrf)} ${hidden('credential', '')}
      ${textInput('passkey-name', 'Passkey name', { name: 'name', required: false, maxLength: PASSKEY_NAME_MAX, value: state.typedName ?? '' })}
      <p class="note">For example "Work laptop"; left empty, it is numbered.</p>
      <p class="error" role="alert" data-passkey-error hidden></p>
      <noscript><p class="note">Adding a passkey needs JavaScript, which is off in this browser.</p></noscript>
      <p class="note" data-passkey-unsupported hidden>This browser cannot create passkeys.</p>
      <button type="submit">Add a passkey</button>
    </form>
    ${PASSKEY_SCRIPT_PATHS.map((src) => html`<script src="${src}"></script>`)}
  </section>`;
}

/** "Rename passkey": the passkey's "Passkey name" with "Save name". */
function renamePage(ctx: Context, visitor: ConsoleVisitor, passkey: PasskeyRecord, typed: string, message: string | null, status = 200): void {
  sendConsolePage(
    ctx,
    {
      title: 'Rename passkey',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.security,
      body: html`${errorNote(message)}
        <p>The passkey is called ${passkey.name}; it was added ${dateText(passkey.createdAt)}.</p>
        <form method="post" action="${passkeyRenamePath(passkey._id)}">
          ${hidden('csrf_token', visitor.csrf)} ${hidden('passkey_id', passkey._id)}
          ${textInput('passkey-name', 'Passkey name', { name: 'name', required: false, maxLength: PASSKEY_NAME_MAX, value: typed })}
          <button type="submit">Save name</button>
        </form>
        <p><a href="${CONSOLE_PATHS.security}">Back to Security</a></p>`,
    },
    status,
  );
}

export type ShowSecurity = (ctx: Context, visitor: ConsoleVisitor, deps: ConsoleDeps, passkeys: PasskeysSectionState, status?: number) => Promise<void>;

/** The section's posts: the ceremony's options (JSON), the new passkey, a removal. `show` answers with the Security page. */
export function mountPasskeysSection(pages: ConsolePages, show: ShowSecurity): void {
  pages.post(PASSKEY_OPTIONS_PATH, async (ctx, visitor, _form, { config, now, stores }) => {
    const options = await passkeyRegistrationOptions(stores, relyingPartyOf(config.authUrl), visitor.user, now());
    setPageHeaders(ctx);
    ctx.type = 'application/json';
    ctx.body = options;
  });
  pages.post(PASSKEYS_PATH, async (ctx, visitor, form, deps) => {
    const name = form.get('name') ?? '';
    const credential = form.get('credential') ?? '';
    if (credential === '')
      return show(ctx, visitor, deps, { typedName: name, message: 'No passkey was added: adding one needs JavaScript, and the browser sent none.' }, 400);
    await keepingTheForm(
      async () => {
        const result = await deps.road.run(ctx, visitor, 'console.passkeys.add', { body: { name, credential } });
        seeOtherSaying(ctx, CONSOLE_PATHS.security, `The passkey ${(result.body as { name: string }).name} was added. You can sign in with it.`);
      },
      (_message, status, problem) => show(ctx, visitor, deps, { typedName: name, message: `No passkey was added: ${problem.detail}` }, status),
    );
  });
  pages.get(`${PASSKEYS_PATH}/:passkey_id/rename`, async (ctx, visitor, { stores }) => {
    const passkey = await findPasskeyOf(stores, visitor.user._id, String(ctx.params.passkey_id));
    if (!passkey) throw notFound('passkey');
    renamePage(ctx, visitor, passkey, passkey.name, null);
  });
  pages.post(`${PASSKEYS_PATH}/:passkey_id/rename`, async (ctx, visitor, form, { road, stores }) => {
    const passkeyId = form.get('passkey_id') ?? '';
    const name = form.get('name') ?? '';
    await keepingTheForm(
      async () => {
        const result = await road.run(ctx, visitor, 'console.passkeys.rename', { body: { passkey_id: passkeyId, name } });
        seeOtherSaying(ctx, CONSOLE_PATHS.security, `The passkey is now called ${(result.body as { name: string }).name}.`);
      },
      async (message, status) => {
        const passkey = await findPasskeyOf(stores, visitor.user._id, passkeyId);
        if (!passkey) throw notFound('passkey');
        renamePage(ctx, visitor, passkey, name, message, status);
      },
    );
  });
  pages.post(`${PASSKEYS_PATH}/:passkey_id/remove`, async (ctx, visitor, form, { road }) => {
    const result = await road.run(ctx, visitor, 'console.passkeys.remove', { body: { passkey_id: form.get('passkey_id') ?? '' } });
    seeOtherSaying(ctx, CONSOLE_PATHS.security, `The passkey ${(result.body as { name: string }).name} was removed.`);
  });
}
