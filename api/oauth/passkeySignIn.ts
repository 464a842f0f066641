import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import type { Stores } from '../../core/deps';
import { passkeySignInOptions, signInWithPasskey } from '../../core/users/passkeyCeremonies';
import { relyingPartyOf } from '../../core/users/passkeys';
import { safeReturnPath } from '../console/returnPath';
import { storeOutagePage } from './authorizationFlow';
import { csrfValid, readPageForm, sessionValueOf, setPageHeaders } from '../views/pageSecurity';
import { PASSKEY_SIGN_IN_OPTIONS_PATH, PASSKEY_SIGN_IN_PATH } from './pagePaths';
import { csrfRefused, handleOf, signInForm } from './signInPages';
import { completeSignIn } from './signInCompletion';

/**
 * Signing in with a passkey alone (DECISIONS.md "Accounts, settings …"): the sign-in page's form
 * asks for the ceremony's options (bound to this browser's session value, which the page gave it),
 * then posts the browser's answer here. A verified passkey of an active person signs them in as a
 * password does (signInPages.ts `finishSignIn`); a passkey is a second factor in itself (the
 * device's screen lock or PIN, `userVerification: required`), so no further step follows.
 */
async function optionsSubmit(ctx: Context, config: Config, now: () => number, stores: Stores, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const options = await passkeySignInOptions(stores, relyingPartyOf(config.authUrl), sessionValueOf(ctx, config)!, new Date(now()));
  setPageHeaders(ctx);
  ctx.type = 'application/json';
  ctx.body = options;
}

async function passkeySubmit(ctx: Context, config: Config, now: () => number, stores: Stores, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const handle = handleOf(form.get('request'));
  const result = await signInWithPasskey(stores, relyingPartyOf(config.authUrl), sessionValueOf(ctx, config)!, form.get('credential') ?? '', new Date(now()));
  if (!result.ok) return signInForm(ctx, config, keys, handle, result.message, 401, '', safeReturnPath(form.get('return_to')));
  await completeSignIn(ctx, config, keys, stores, result.user, { handle, returnTo: form.get('return_to') }, new Date(now()));
}

/** `limitOptions` holds each client address to its share of options (each stores a challenge before anyone signed in). */
export function mountPasskeySignIn(router: Router, config: Config, now: () => number, stores: Stores, keys: PurposeKeys, limitOptions: Middleware): void {
  router.post(
    PASSKEY_SIGN_IN_OPTIONS_PATH,
    limitOptions,
    storeOutagePage((ctx) => optionsSubmit(ctx, config, now, stores, keys)),
  );
  router.post(
    PASSKEY_SIGN_IN_PATH,
    storeOutagePage((ctx) => passkeySubmit(ctx, config, now, stores, keys)),
  );
}
