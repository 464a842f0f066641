import type { Stores } from '../../core/deps';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import { requestPasswordReset } from '../../core/accounts/passwordReset';
import { LINK_LIFETIMES_MS } from '../../core/users/oneTimeLinks';
import { takeSlot } from '../../core/users/attemptSlots';
import { requestLogger } from '../requestLogger';
import { storeOutagePage } from './authorizationFlow';
import { PASSWORD_RESET_PAGE_PATH, SIGN_IN_PAGE_PATH } from './pagePaths';
import { hidden } from '../views/pageRendering';
import { html } from '../views/safeHtml';
import { csrfToken, csrfValid, ensureSessionValue, readPageForm } from '../views/pageSecurity';
import { csrfRefused, sendPage } from './signInPages';

/**
 * "Reset your password" → "Check your email" (DECISIONS.md "Accounts, settings …"). The answer
 * is written before the address is even looked up, and the lookup and the mail run after it, so a
 * known and an unknown address get the same page, status and time. One client address may ask
 * ADDRESS_RESETS_PER_HOUR times an hour; beyond, the same page is shown and nothing is sent.
 */
export const ADDRESS_RESETS_PER_HOUR = 20;

function resetForm(ctx: Context, config: Config, keys: PurposeKeys): void {
  const session = ensureSessionValue(ctx, config);
  sendPage(
    ctx,
    'Reset your password',
    html`<p>Type the email address of your account. If it has one, we mail it a link to choose a new password.</p>
      <form method="post" action="${PASSWORD_RESET_PAGE_PATH}">
        ${hidden('csrf_token', csrfToken(session, keys))}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" maxlength="320" required />
        <button type="submit">Send reset link</button>
      </form>
      <p><a href="${SIGN_IN_PAGE_PATH}">Back to sign in</a></p>`,
  );
}

async function resetSubmit(ctx: Context, config: Config, stores: Stores, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const email = (form.get('email') ?? '').slice(0, 320);
  const now = new Date();
  const byAddress = await takeSlot(stores, `reset:addr:${ctx.ip}`, ADDRESS_RESETS_PER_HOUR, 3600_000, now);
  if (byAddress.ok && email) {
    const log = requestLogger(ctx);
    requestPasswordReset(stores, config, keys, email, now).catch((err: Error) =>
      log.error({ err: { name: err.name, message: err.message } }, 'password reset request failed'),
    );
  }
  sendPage(
    ctx,
    'Check your email',
    html`<div role="status">
        <p>
          If an account uses that address, we sent it a link to choose a new password. The link works once, for ${LINK_LIFETIMES_MS.reset / 60_000} minutes.
        </p>
      </div>
      <p>No mail after a few minutes? Check your spam folder, or <a href="${PASSWORD_RESET_PAGE_PATH}">ask again</a>.</p>
      <p><a href="${SIGN_IN_PAGE_PATH}">Back to sign in</a></p>`,
  );
}

export function mountPasswordResetPages(router: Router, config: Config, stores: Stores, keys: PurposeKeys): void {
  router.get(
    PASSWORD_RESET_PAGE_PATH,
    storeOutagePage(async (ctx) => resetForm(ctx, config, keys)),
  );
  router.post(
    PASSWORD_RESET_PAGE_PATH,
    storeOutagePage((ctx) => resetSubmit(ctx, config, stores, keys)),
  );
}
