import type { Context } from 'koa';
import { errorNote, hidden } from '../views/pageRendering';
import { html } from '../views/safeHtml';
import { passkeyCountOf } from '../../core/users/passkeyCeremonies';
import { hostAllowsPasskeys } from '../../core/users/passkeys';
import type { PasskeyStores } from '../../core/users/passkeysStore';
import { secondFactorsOf } from '../../core/users/secondFactors';
import { CONSOLE_PATHS } from './consolePaths';
import { sendConsolePage } from './consoleLayout';
import type { ConsoleVisitor } from './consoleVisitor';
import { PASSKEY_SCRIPT_PATHS } from './passkeyAssets';

/**
 * `/console/confirm` "Confirm your password" (sudo mode, core/users/sudoMode.ts). The password
 * is checked by the sign-in's own function, so its failure limits per account and per address
 * hold here too. Two ways in:
 * - a form about to be opened sends the person here with `return_to`; once confirmed they go
 *   back to it (a console path only);
 * - a form posted without sudo mode is answered with this page in its place, holding what was
 *   posted (hidden fields) and where (`sudo_action`); once confirmed, the browser is told to post
 *   the same body there again (307), so the change is made with nothing retyped.
 */
const OWN_FIELDS = new Set(['csrf_token', 'password', 'code', 'credential', 'via', 'return_to', 'sudo_action']);

/** Where "Confirm with a passkey" asks for the ceremony's options (only the person's own passkeys). */
export const CONFIRM_PASSKEY_OPTIONS_PATH = `${CONSOLE_PATHS.confirm}/passkey-options`;

/** What a refused post carries through the confirmation: where it went and its fields. */
export interface PendingPost {
  action: string;
  form: URLSearchParams;
}

function carriedFields(form: URLSearchParams): [string, string][] {
  return [...form].filter(([name]) => !OWN_FIELDS.has(name));
}

export type AfterConfirming = { returnTo: string } | { pending: PendingPost };

/**
 * With an authenticator app, a code from it confirms as well as the password does (GitHub's sudo
 * mode): one form, so what it carries is sent once, with a button for each (`via`); neither field
 * is required then, since either answer does. With a passkey, "Confirm with a passkey" is a
 * second form (the passkey script, passkeyAssets.ts, fills its `credential` and posts it with
 * `via=passkey`), carrying the same hidden fields.
 */
export async function confirmForm(
  ctx: Context,
  stores: PasskeyStores,
  visitor: ConsoleVisitor,
  next: AfterConfirming,
  message: string | null,
  status = 200,
  authUrl: string | null = null,
): Promise<void> {
  const pending = 'pending' in next ? next.pending : null;
  const withCode = (await secondFactorsOf(stores, visitor.user)).authenticatorApp;
  const withPasskey = authUrl !== null && hostAllowsPasskeys(authUrl) && (await passkeyCountOf(stores, visitor.user._id)) > 0;
  const carried = pending
    ? html`${hidden('sudo_action', pending.action)}${carriedFields(pending.form).map(([name, value]) => hidden(name, value))}`
    : hidden('return_to', 'returnTo' in next ? next.returnTo : CONSOLE_PATHS.overview);
  sendConsolePage(
    ctx,
    {
      title: 'Confirm your password',
      visitor: visitor.layout,
      body: html`${errorNote(message)}
        <p>
          ${
            withCode
              ? 'This change needs your password again, or a code from your authenticator app: you last confirmed it more than 15 minutes ago.'
              : 'This change needs your password again: you last typed it more than 15 minutes ago.'
          }
        </p>
        ${pending ? html`<p>What you entered is kept: once you confirm, the change is made as you sent it.</p>` : ''}
        <form method="post" action="${CONSOLE_PATHS.confirm}">
          ${hidden('csrf_token', visitor.csrf)} ${carried}
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" ${withCode ? '' : html`required`} />
          <button type="submit" name="via" value="password">Confirm</button>
          ${
            withCode
              ? html`<label for="code">Authentication code</label>
                  <input id="code" name="code" type="text" inputmode="numeric" pattern="[0-9 ]*" maxlength="7" autocomplete="one-time-code" />
                  <button type="submit" name="via" value="code">Verify</button>`
              : ''
          }
        </form>
        ${
          withPasskey
            ? html`<form method="post" action="${CONSOLE_PATHS.confirm}" data-passkey="confirm" data-options="${CONFIRM_PASSKEY_OPTIONS_PATH}">
                  ${hidden('csrf_token', visitor.csrf)} ${hidden('via', 'passkey')} ${hidden('credential', '')} ${carried}
                  <p class="error" role="alert" data-passkey-error hidden></p>
                  <noscript><p class="note">Confirming with a passkey needs JavaScript, which is off in this browser.</p></noscript>
                  <p class="note" data-passkey-unsupported hidden>This browser cannot use passkeys.</p>
                  <button type="submit">Confirm with a passkey</button>
                </form>
                ${PASSKEY_SCRIPT_PATHS.map((src) => html`<script src="${src}"></script>`)}`
            : ''
        }`,
    },
    status,
  );
}

/** Answers a post the road refused for want of sudo mode: this page, holding the post. Nothing was changed. */
export function askForPassword(
  ctx: Context,
  stores: PasskeyStores,
  visitor: ConsoleVisitor,
  pending: PendingPost,
  authUrl: string | null = null,
): Promise<void> {
  return confirmForm(ctx, stores, visitor, { pending }, null, 200, authUrl);
}
