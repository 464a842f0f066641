import type Router from '@koa/router';
import type { Context } from 'koa';
import { noticeSecondFactorChange } from '../../core/accounts/securityNotices';
import type { Config } from '../../core/config';
import { checkSecondFactor, type SecondFactorAnswer } from '../../core/users/secondFactorCheck';
import { challengedUser, endSignInChallenge } from '../../core/users/signInChallenges';
import { redirectTo, storeOutagePage } from './authorizationFlow';
import { errorNote, hidden } from '../views/pageRendering';
import { html } from '../views/safeHtml';
import { csrfToken, csrfValid, readPageForm, sessionValueOf } from '../views/pageSecurity';
import { SIGN_IN_PAGE_PATH, TWO_FACTOR_PAGE_PATH } from './pagePaths';
import { carriedQuery, completeSignIn, type AfterSignIn } from './signInCompletion';
import { csrfRefused, sendPage } from './signInPages';

/**
 * "Two-factor authentication" (DECISIONS.md "Accounts, settings …"): after the password of a
 * person with a second factor, the code from their authenticator app ("Authentication code") or,
 * through "Use a recovery code", one of their recovery codes ("Recovery code"). The session is
 * made only once one is right; wrong ones are limited like passwords (secondFactorCheck.ts). A
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

function secondFactorForm(ctx: Context, config: Config, sessionValue: string, method: Method, next: AfterSignIn, message: string | null, status = 200): void {
  const other: Method = method === 'code' ? 'recovery_code' : 'code';
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
  sendPage(
    ctx,
    'Two-factor authentication',
    html`${errorNote(message)}
      <form method="post" action="${TWO_FACTOR_PAGE_PATH}">
        ${hidden('csrf_token', csrfToken(sessionValue, config))} ${hidden('method', method)} ${next.handle ? hidden('request', next.handle) : ''}
        ${!next.handle && typeof next.returnTo === 'string' ? hidden('return_to', next.returnTo) : ''} ${field}
        <button type="submit">Verify</button>
      </form>
      <p>
        <a href="${TWO_FACTOR_PAGE_PATH}${carriedQuery(next, other === 'recovery_code' ? { method: 'recovery_code' } : {})}"
          >${other === 'recovery_code' ? 'Use a recovery code' : 'Use your authenticator app'}</a
        >
      </p>`,
    status,
  );
}

async function secondFactorPage(ctx: Context, config: Config, now: () => number): Promise<void> {
  const next = nextOf(queryReader(ctx));
  const value = sessionValueOf(ctx, config);
  if (!value || !(await challengedUser(value, new Date(now())))) return redirectTo(ctx, `${SIGN_IN_PAGE_PATH}${carriedQuery(next)}`);
  secondFactorForm(ctx, config, value, ctx.query.method === 'recovery_code' ? 'recovery_code' : 'code', next, null);
}

async function secondFactorSubmit(ctx: Context, config: Config, now: () => number): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, form)) return csrfRefused(ctx);
  const next = nextOf(form);
  const value = sessionValueOf(ctx, config)!;
  const at = new Date(now());
  const user = await challengedUser(value, at);
  if (!user) return redirectTo(ctx, `${SIGN_IN_PAGE_PATH}${carriedQuery(next)}`);
  const method: Method = form.get('method') === 'recovery_code' ? 'recovery_code' : 'code';
  const answer: SecondFactorAnswer = { kind: method, value: form.get(method) ?? '' };
  const result = await checkSecondFactor(config, user._id, answer, ctx.ip, at);
  if (!result.ok) {
    if (result.retryAfterSeconds) ctx.set('Retry-After', String(result.retryAfterSeconds));
    return secondFactorForm(ctx, config, value, method, next, result.message, result.retryAfterSeconds ? 429 : 401);
  }
  // Two posts of one right answer: the first ends the challenge and signs in, the second starts over.
  if (!(await endSignInChallenge(value))) return redirectTo(ctx, `${SIGN_IN_PAGE_PATH}${carriedQuery(next)}`);
  if (result.usedRecoveryCode) await noticeSecondFactorChange(config, user, 'recovery_code_used', at);
  await completeSignIn(ctx, config, user, next, at);
}

export function mountSecondFactorPages(router: Router, config: Config, now: () => number): void {
  router.get(
    TWO_FACTOR_PAGE_PATH,
    storeOutagePage((ctx) => secondFactorPage(ctx, config, now)),
  );
  router.post(
    TWO_FACTOR_PAGE_PATH,
    storeOutagePage((ctx) => secondFactorSubmit(ctx, config, now)),
  );
}
