import type { Context } from 'koa';
import { signIn } from '../../../core/users/signIn';
import { recordConfirmation } from '../../../core/users/sudoMode';
import { errorNote, hidden, html } from '../../oauth/pageRendering';
import { CONSOLE_PATHS } from '../consolePaths';
import { seeOther, sendConsolePage } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import type { ConsoleVisitor } from '../consoleVisitor';
import { safeReturnPath } from '../returnPath';

/**
 * `/console/confirm` "Confirm your password" (sudo mode, core/users/sudoMode.ts). The password
 * is checked by the sign-in's own function, so its failure limits per account and per address
 * hold here too; then the person goes on to where they were going (a console path only).
 */
function confirmForm(ctx: Context, visitor: ConsoleVisitor, returnTo: string, message: string | null, status = 200): void {
  sendConsolePage(
    ctx,
    {
      title: 'Confirm your password',
      visitor: visitor.layout,
      body: html`${errorNote(message)}
        <p>This change needs your password again: you last typed it more than 15 minutes ago.</p>
        <form method="post" action="${CONSOLE_PATHS.confirm}">
          ${hidden('csrf_token', visitor.csrf)} ${hidden('return_to', returnTo)}
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Confirm</button>
        </form>`,
    },
    status,
  );
}

export function mountConfirmPage(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.confirm, async (ctx, visitor) => {
    confirmForm(ctx, visitor, safeReturnPath(ctx.query.return_to) ?? CONSOLE_PATHS.overview, null);
  });
  pages.post(CONSOLE_PATHS.confirm, async (ctx, visitor, form, { decoy }) => {
    const returnTo = safeReturnPath(form.get('return_to')) ?? CONSOLE_PATHS.overview;
    const result = await signIn(decoy, visitor.user.email, form.get('password') ?? '', ctx.ip);
    if (!result.ok || result.user._id !== visitor.user._id) {
      if (!result.ok && result.retryAfterSeconds) ctx.set('Retry-After', String(result.retryAfterSeconds));
      const message = !result.ok && result.retryAfterSeconds ? result.message : 'The password is not correct.';
      return confirmForm(ctx, visitor, returnTo, message, !result.ok && result.retryAfterSeconds ? 429 : 401);
    }
    await recordConfirmation(visitor.sessionValue);
    seeOther(ctx, returnTo);
  });
}
