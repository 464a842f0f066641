import type { Context } from 'koa';
import { signIn } from '../../../core/users/signIn';
import { recordConfirmation } from '../../../core/users/sudoMode';
import { errorNote, hidden, html } from '../../oauth/pageRendering';
import { CONSOLE_PATHS } from '../consolePaths';
import { seeOther, sendConsolePage, setConsoleHeaders } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import type { ConsoleVisitor } from '../consoleVisitor';
import { safeReturnPath } from '../returnPath';

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
const OWN_FIELDS = new Set(['csrf_token', 'password', 'return_to', 'sudo_action']);

/** What a refused post carries through the confirmation: where it went and its fields. */
export interface PendingPost {
  action: string;
  form: URLSearchParams;
}

function carriedFields(form: URLSearchParams): [string, string][] {
  return [...form].filter(([name]) => !OWN_FIELDS.has(name));
}

type AfterConfirming = { returnTo: string } | { pending: PendingPost };

function confirmForm(ctx: Context, visitor: ConsoleVisitor, next: AfterConfirming, message: string | null, status = 200): void {
  const pending = 'pending' in next ? next.pending : null;
  sendConsolePage(
    ctx,
    {
      title: 'Confirm your password',
      visitor: visitor.layout,
      body: html`${errorNote(message)}
        <p>This change needs your password again: you last typed it more than 15 minutes ago.</p>
        ${pending ? html`<p>What you entered is kept: once you confirm, the change is made as you sent it.</p>` : ''}
        <form method="post" action="${CONSOLE_PATHS.confirm}">
          ${hidden('csrf_token', visitor.csrf)}
          ${
            pending
              ? html`${hidden('sudo_action', pending.action)}${carriedFields(pending.form).map(([name, value]) => hidden(name, value))}`
              : hidden('return_to', 'returnTo' in next ? next.returnTo : CONSOLE_PATHS.overview)
          }
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Confirm</button>
        </form>`,
    },
    status,
  );
}

/** Answers a post the road refused for want of sudo mode: this page, holding the post. Nothing was changed. */
export function askForPassword(ctx: Context, visitor: ConsoleVisitor, pending: PendingPost): void {
  confirmForm(ctx, visitor, { pending }, null);
}

export function mountConfirmPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.confirm, async (ctx, visitor) => {
    confirmForm(ctx, visitor, { returnTo: safeReturnPath(ctx.query.return_to) ?? CONSOLE_PATHS.overview }, null);
  });
  pages.post(CONSOLE_PATHS.confirm, async (ctx, visitor, form, { decoy, now }) => {
    const action = safeReturnPath(form.get('sudo_action'));
    const next: AfterConfirming = action ? { pending: { action, form } } : { returnTo: safeReturnPath(form.get('return_to')) ?? CONSOLE_PATHS.overview };
    const result = await signIn(decoy, visitor.user.email, form.get('password') ?? '', ctx.ip);
    if (!result.ok || result.user._id !== visitor.user._id) {
      if (!result.ok && result.retryAfterSeconds) ctx.set('Retry-After', String(result.retryAfterSeconds));
      const message = !result.ok && result.retryAfterSeconds ? result.message : 'The password is not correct.';
      return confirmForm(ctx, visitor, next, message, !result.ok && result.retryAfterSeconds ? 429 : 401);
    }
    await recordConfirmation(visitor.sessionValue, now());
    if ('returnTo' in next) return seeOther(ctx, next.returnTo);
    // 307 keeps the method and the body: the browser posts what the person sent to where they sent it.
    setConsoleHeaders(ctx);
    ctx.status = 307;
    ctx.set('Location', next.pending.action);
    ctx.body = '';
  });
}
