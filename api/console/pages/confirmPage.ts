import { signIn } from '../../../core/users/signIn';
import { recordConfirmation } from '../../../core/users/sudoMode';
import { CONSOLE_PATHS } from '../consolePaths';
import { seeOther, setConsoleHeaders } from '../consoleLayout';
import type { ConsolePages } from '../consolePages';
import { confirmForm, type AfterConfirming } from '../passwordConfirmation';
import { safeReturnPath } from '../returnPath';

/** `/console/confirm` "Confirm your password" (sudo mode; the form and its two ways in: passwordConfirmation.ts). */
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
