import type Router from '@koa/router';
import type { Context } from 'koa';
import { noticeSecondFactorChange } from '../../core/accounts/securityNotices';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import type { Stores } from '../../core/deps';
import { checkSecondFactor, type SecondFactorAnswer } from '../../core/users/secondFactorCheck';
import { challengedUser, endSignInChallenge } from '../../core/users/signInChallenges';
import { errorPage, redirectTo, storeOutagePage } from './authorizationFlow';
import { errorNote, hidden } from '../views/pageRendering';
import { html } from '../views/safeHtml';
import { csrfToken, csrfValid, readPageForm, sessionValueOf } from '../views/pageSecurity';
import { SIGN_IN_PAGE_PATH, TWO_FACTOR_PAGE_PATH } from './pagePaths';
import { carriedQuery, completeSignIn, type AfterSignIn } from './signInCompletion';
import { csrfRefused, sendPage } from './signInPages';
import { passkeySignInControl, PASSKEY_PAGE_CONTENT_SECURITY_POLICY } from './passkeySignInControl';
import { secondFactorsOf, type SecondFactors } from '../../core/users/secondFactors';
import type { UserRecord } from '../../core/users/store';

/**
 * "Two-factor authentication" (DECISIONS.md "Accounts, settings …"): after the password of a
 * person with a second factor, the code from their authenticator app ("Authentication code") or,
 * through "Use a recovery code", one of their recovery codes ("Recovery code"). The session is
 * made only once one is right. A person with passkeys is offered "Sign in with a passkey" there
 * (in place of the code when they have no authenticator app): a passkey is both factors at once; wrong ones are limited like passwords (secondFactorCheck.ts). A
 * used recovery code is mailed to the person.
 */
type Method = 'code' | 'recovery_code';

const handleOf = (value: unknown): string | null => (typeof value === 'string' && /^[0-9A-Za-z]{32}$/.test(value) ? value : null);

function nextOf(source: { get(name: string): string | null }): AfterSignIn {
  return { handle: handleOf(source.get('request')), returnTo: source.get('return_to') };
}

function queryReader(ctx: Context): { get(name: string): string | null } {
  return { get: (name) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : null) };
}

function secondFactorForm(
  ctx: Context,
  config: Config,
  keys: PurposeKeys,
  sessionValue: string,
  factors: SecondFactors,
  method: Method,
  next: AfterSignIn,
  message: string | null,
  status = 200,
): void {
  const other: Method = method === 'code' ? 'recovery_code' : 'code';
  const codeForm = method === 'recovery_code' || factors.authenticatorApp;
  const passkey = factors.passkeys > 0 && method === 'code';
  const field =
    method === 'code'
      ? html`<label for="code">Authentication code</label>
          <input
            id="code"
            name="code"
            type="text"
            inputmode="numeric"
            pattern="[0-9 ]*"
            maxlength="7"
            autocomplete="one-time-code"
            aria-describedby="code-note"
            required
          />
          <p id="code-note" class="note">The 6-digit code your authenticator app shows now.</p>`
      : html`<label for="recovery_code">Recovery code</label>
          <input
            id="recovery_code"
            name="recovery_code"
            type="text"
            maxlength="20"
            autocomplete="off"
            spellcheck="false"
            aria-describedby="code-note"
            required
          />
          <p id="code-note" class="note">One of the ten codes you kept when you turned on two-factor authentication (like 4f7kq-2x9mb). Each works once.</p>`;
  const returnTo = !next.handle && typeof next.returnTo === 'string' ? next.returnTo : null;
  sendPage(
    ctx,
    'Two-factor authentication',
    html`${errorNote(message)}
      ${
        codeForm
          ? html`<form method="post" action="${TWO_FACTOR_PAGE_PATH}">
              ${hidden('csrf_token', csrfToken(sessionValue, keys))} ${hidden('method', method)} ${next.handle ? hidden('request', next.handle) : ''}
              ${returnTo ? hidden('return_to', returnTo) : ''} ${field}
              <button type="submit">Verify</button>
            </form>`
          : html`<p>Use the passkey you added to this account.</p>`
      }
      ${passkey ? passkeySignInControl(csrfToken(sessionValue, keys), next.handle, returnTo) : ''}
      <p>
        <a href="${TWO_FACTOR_PAGE_PATH}${carriedQuery(next, other === 'recovery_code' ? { method: 'recovery_code' } : {})}"
          >${other === 'recovery_code' ? 'Use a recovery code' : factors.authenticatorApp ? 'Use your authenticator app' : 'Use a passkey'}</a
        >
      </p>`,
    status,
    passkey ? PASSKEY_PAGE_CONTENT_SECURITY_POLICY : undefined,
  );
}

async function secondFactorPage(ctx: Context, config: Config, now: () => number, stores: Stores, keys: PurposeKeys): Promise<void> {
  const method = ctx.query.method;
  if (method !== undefined && method !== 'code' && method !== 'recovery_code') {
    return errorPage(ctx, 400, 'Two-factor authentication', 'The link asks for a way of answering this page does not know: go back to Sign in and try again.');
  }
  const next = nextOf(queryReader(ctx));
  const value = sessionValueOf(ctx, config);
  const user: UserRecord | null = value ? await challengedUser(stores, value, new Date(now())) : null;
  if (!value || !user) return redirectTo(ctx, `${SIGN_IN_PAGE_PATH}${carriedQuery(next)}`);
  secondFactorForm(ctx, config, keys, value, await secondFactorsOf(stores, user), method === 'recovery_code' ? 'recovery_code' : 'code', next, null);
}

async function secondFactorSubmit(ctx: Context, config: Config, now: () => number, stores: Stores, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const next = nextOf(form);
  const value = sessionValueOf(ctx, config)!;
  const at = new Date(now());
  const user = await challengedUser(stores, value, at);
  if (!user) return redirectTo(ctx, `${SIGN_IN_PAGE_PATH}${carriedQuery(next)}`);
  const method: Method = form.get('method') === 'recovery_code' ? 'recovery_code' : 'code';
  const answer: SecondFactorAnswer = { kind: method, value: form.get(method) ?? '' };
  const result = await checkSecondFactor(stores, keys, user._id, answer, ctx.ip, at);
  if (!result.ok) {
    if (result.retryAfterSeconds) ctx.set('Retry-After', String(result.retryAfterSeconds));
    return secondFactorForm(ctx, config, keys, value, await secondFactorsOf(stores, user), method, next, result.message, result.retryAfterSeconds ? 429 : 401);
  }
  // Two posts of one right answer: the first ends the challenge and signs in, the second starts over.
  if (!(await endSignInChallenge(stores, value))) return redirectTo(ctx, `${SIGN_IN_PAGE_PATH}${carriedQuery(next)}`);
  if (result.usedRecoveryCode) await noticeSecondFactorChange(stores, config, keys, user, 'recovery_code_used', at);
  await completeSignIn(ctx, config, keys, stores, user, next, at);
}

export function mountSecondFactorPages(router: Router, config: Config, now: () => number, stores: Stores, keys: PurposeKeys): void {
  router.get(
    TWO_FACTOR_PAGE_PATH,
    storeOutagePage((ctx) => secondFactorPage(ctx, config, now, stores, keys)),
  );
  router.post(
    TWO_FACTOR_PAGE_PATH,
    storeOutagePage((ctx) => secondFactorSubmit(ctx, config, now, stores, keys)),
  );
}
