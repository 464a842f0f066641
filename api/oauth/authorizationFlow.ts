import type { Context } from 'koa';
import type { Config } from '../../core/config';
import { authorizationResponseUrl, type AuthorizationErrorCode } from '../../core/oauth/authorizationRules';
import { findGrant, type GrantRecord } from '../../core/oauth/consentGrants';
import { finishPending, findPending, issueCode, type PendingAuthorization } from '../../core/oauth/pendingAuthorizations';
import { CONSOLE_SECURITY_PATH } from '../../core/accounts/accountPaths';
import { mustEnrolSecondFactor } from '../../core/users/secondFactors';
import type { Stores } from '../../core/deps';
import type { TenancyStores } from '../../core/tenancy/store';
import type { PasskeyStores } from '../../core/users/passkeysStore';
import type { UserRecord } from '../../core/users/users';
import { requestLogger } from '../requestLogger';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../../core/store/storeUnavailable';
import { page } from '../views/pageRendering';
import { html } from '../views/safeHtml';
import { setPageHeaders } from '../views/pageSecurity';
import { CONSENT_PAGE_PATH } from './pagePaths';

/**
 * The steps shared by the authorization endpoint and the pages: an error page (never a
 * redirect, for a request that cannot be trusted to name where to go), the redirect back to the
 * client with a code or an error, and resuming a pending request once the person is signed in.
 */
export function errorPage(ctx: Context, status: number, title: string, message: string): void {
  setPageHeaders(ctx);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(
    title,
    html`<p role="alert">${message}</p>
      <p class="note">Go back to the application you came from and start again. If this keeps happening, contact your administrator.</p>`,
  );
}

/**
 * A sign-in page whose store is unreachable answers a page saying so (503 with Retry-After),
 * never the bare 500 page: the person can retry in a moment with nothing lost.
 */
export function storeOutagePage(handler: (ctx: Context) => Promise<void>): (ctx: Context) => Promise<void> {
  return async (ctx) => {
    try {
      await handler(ctx);
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      requestLogger(ctx).warn({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, 'store unavailable');
      errorPage(
        ctx,
        503,
        'Temporarily unavailable',
        'The sign-in service cannot reach its data store right now. Nothing was changed; try again in a few seconds.',
      );
      ctx.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    }
  };
}

export function redirectTo(ctx: Context, location: string): void {
  setPageHeaders(ctx);
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.body = '';
}

export function redirectWithError(
  ctx: Context,
  config: Config,
  redirectUri: string,
  state: string | null,
  error: AuthorizationErrorCode,
  description?: string,
): void {
  redirectTo(ctx, authorizationResponseUrl(redirectUri, config.authUrl, state, { error, description }));
}

const EXPIRED = 'This sign-in request has expired or was already completed.';

/** Issues the code for a pending request the person has consented to, and sends the browser back to the client. */
export async function completeAuthorization(
  ctx: Context,
  config: Config,
  stores: Stores,
  handle: string,
  pending: PendingAuthorization,
  user: UserRecord,
  grant: GrantRecord,
  now: Date,
): Promise<void> {
  if (await sentToEnrol(ctx, stores, user)) return;
  if (!(await finishPending(stores, handle))) return errorPage(ctx, 400, 'Sign-in request expired', EXPIRED);
  const code = await issueCode(stores, pending, user._id, grant._id, now);
  redirectTo(ctx, authorizationResponseUrl(pending.redirectUri, config.authUrl, pending.state, { code }));
}

/**
 * A person whose organization requires a second factor they do not have is sent to the console's
 * Security page instead of anywhere else (no consent, no code): true when they were.
 */
export async function sentToEnrol(ctx: Context, stores: TenancyStores & PasskeyStores, user: UserRecord): Promise<boolean> {
  if (!(await mustEnrolSecondFactor(stores, user))) return false;
  redirectTo(ctx, CONSOLE_SECURITY_PATH);
  return true;
}

/** After sign-in: straight back to the client when consent is remembered, else the consent page. */
export async function resumeAuthorization(ctx: Context, config: Config, stores: Stores, handle: string, user: UserRecord, now: Date): Promise<void> {
  if (await sentToEnrol(ctx, stores, user)) return;
  const pending = await findPending(stores, handle, now);
  if (!pending) return errorPage(ctx, 400, 'Sign-in request expired', EXPIRED);
  const grant = await findGrant(stores, user._id, pending.clientId);
  if (grant) return completeAuthorization(ctx, config, stores, handle, pending, user, grant, now);
  redirectTo(ctx, `${CONSENT_PAGE_PATH}?request=${encodeURIComponent(handle)}`);
}
