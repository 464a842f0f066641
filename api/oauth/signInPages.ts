import type { Stores } from '../../core/deps';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import { PERMISSIONS } from '../../core/keys/permissions';
import { authorizationResponseUrl } from '../../core/oauth/authorizationRules';
import { allowanceOfGrant, listGrants, recordConsent, type GrantRecord } from '../../core/oauth/consentGrants';
import { agentSpendOf, utcDayOf, type AgentSpendSummary } from '../../core/credits/agentAllowance';
import { finishPending, findPending, type PendingAuthorization } from '../../core/oauth/pendingAuthorizations';
import { agentPolicyOf } from '../../core/oauth/agentPolicy';
import { allowanceRefusalUnder, allowanceText, effectiveAllowance, type AgentPolicy } from '../../core/oauth/grantAllowance';
import { allowanceFieldset, proposedChoice, readAllowanceChoice, type AllowanceChoice } from './allowanceChoice';
import { redirectHostOf } from '../../core/oauth/redirectUris';
import { endSession, sessionUser } from '../../core/users/sessions';
import { signIn, type DecoyPasswordHash } from '../../core/users/signIn';
import { findSetupUser, type UserRecord } from '../../core/users/users';
import { revokeUserGrants } from '../../core/oauth/personAccess';
import { setPasswordThroughLink } from '../../core/accounts/passwordReset';
import { completeAuthorization, errorPage, redirectTo, resumeAuthorization, sentToEnrol, storeOutagePage } from './authorizationFlow';
import { askForSecondFactor, completeSignIn, landingOf } from './signInCompletion';
import { hasSecondFactor } from '../../core/users/secondFactors';
import { errorNote, hidden, page } from '../views/pageRendering';
import { html, type SafeHtml } from '../views/safeHtml';
import { passkeySignInControl, PASSKEY_PAGE_CONTENT_SECURITY_POLICY } from './passkeySignInControl';
import { toolsResource } from './tokenEndpoint';
import { CONSOLE_PATHS } from '../console/consolePaths';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../core/users/passwords';
import { sendConsolePage, stackingTable, type TableCell } from '../console/consoleLayout';
import { allowancePath } from '../console/consolePaths';
import { layoutOf } from '../console/consoleVisitor';
import { safeReturnPath } from '../console/returnPath';
import { clearSessionCookie, csrfToken, csrfValid, ensureSessionValue, readPageForm, sessionValueOf, setPageHeaders } from '../views/pageSecurity';
import {
  CONNECTIONS_PAGE_PATH,
  CONSENT_PAGE_PATH,
  PASSWORD_RESET_PAGE_PATH,
  REVOKE_CONNECTION_PATH,
  SETUP_PAGE_PATH,
  SIGN_IN_PAGE_PATH,
  SIGN_OUT_PATH,
} from './pagePaths';

/** What each permission lets an application do, in the words the consent page uses. */
const PERMISSION_TEXT: Record<string, string> = {
  [PERMISSIONS.candidatesSearch]: 'Search candidates',
  [PERMISSIONS.profilesUnlock]: 'Unlock profiles (spends credits)',
  [PERMISSIONS.personMatchesCreate]: 'Match people to profiles (spends credits)',
  [PERMISSIONS.jobsWrite]: 'Start and cancel contact-retrieval jobs (spends credits)',
  [PERMISSIONS.jobsRead]: 'Read contact-retrieval jobs and their results',
  [PERMISSIONS.webhooksManage]: 'Manage webhook endpoints',
  [PERMISSIONS.limitsRead]: 'Read operational limits',
  [PERMISSIONS.usageRead]: 'Read usage: requests and credits spent',
};

export function sendPage(ctx: Context, title: string, body: SafeHtml, status = 200, contentSecurityPolicy?: string): void {
  setPageHeaders(ctx, contentSecurityPolicy);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(title, body);
}

export function csrfRefused(ctx: Context): void {
  errorPage(ctx, 403, 'Form expired', 'This form could not be verified (its security token is missing or does not match). Reload the page and try again.');
}

export function handleOf(value: string | null | undefined): string | null {
  return typeof value === 'string' && /^[0-9A-Za-z]{32}$/.test(value) ? value : null;
}

// ---- set password -------------------------------------------------------------------------

/** A reset link's page is "Choose a new password"; an invitation's or the operator's setup link's, "Set your password". */
function setupTitle(user: UserRecord | null): string {
  return user?.setupPurpose === 'reset' ? 'Choose a new password' : 'Set your password';
}

function setupForm(ctx: Context, config: Config, keys: PurposeKeys, token: string, message: string | null, status = 200, user: UserRecord | null = null): void {
  const session = ensureSessionValue(ctx, config);
  sendPage(
    ctx,
    setupTitle(user),
    html` ${errorNote(message)}
      <p>
        ${
          user?.setupPurpose === 'reset'
            ? 'Choose a new password. Every browser signed in to your account is signed out, and every connected application disconnected.'
            : "Choose the password you will use to sign in to your organization's console and to connect AI applications to the talent platform."
        }
      </p>
      <p id="password-rule" class="note">
        Use ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters; a few unrelated words make a long password you can remember.
      </p>
      <form method="post" action="${SETUP_PAGE_PATH}">
        ${hidden('csrf_token', csrfToken(session, keys))} ${hidden('token', token)}
        <label for="new_password">New password</label>
        <input
          id="new_password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          minlength="${MIN_PASSWORD_LENGTH}"
          maxlength="${MAX_PASSWORD_LENGTH}"
          aria-describedby="password-rule"
          required
        />
        <label for="confirm_password">Confirm password</label>
        <input
          id="confirm_password"
          name="confirm_password"
          type="password"
          autocomplete="new-password"
          minlength="${MIN_PASSWORD_LENGTH}"
          maxlength="${MAX_PASSWORD_LENGTH}"
          required
        />
        <button type="submit">Set password</button>
      </form>`,
    status,
  );
}

const SETUP_INVALID = 'This setup link is invalid, used or expired. Ask your administrator for a new one.';

async function setupPage(ctx: Context, config: Config, stores: Stores, now: () => number, keys: PurposeKeys): Promise<void> {
  const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
  const found = await findSetupUser(stores, token, new Date(now()));
  if (!found.ok) return errorPage(ctx, 400, 'Setup link not valid', SETUP_INVALID);
  setupForm(ctx, config, keys, token, null, 200, found.user);
}

async function setupSubmit(ctx: Context, config: Config, stores: Stores, now: () => number, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const token = form.get('token') ?? '';
  const result = await setPasswordThroughLink(
    stores,

    config,
    keys,
    token,
    form.get('new_password') ?? '',
    form.get('confirm_password') ?? '',
    new Date(now()),
    ctx.ip,
  );
  if (!result.ok) {
    if (result.reason === 'invalid_link') return errorPage(ctx, 400, 'Setup link not valid', result.message);
    const found = await findSetupUser(stores, token, new Date(now()));
    return setupForm(ctx, config, keys, token, result.message, 400, found.ok ? found.user : null);
  }
  sendPage(
    ctx,
    'Password set',
    html` <p role="status">Your password is set. Your account is ${result.user.email}.</p>
      ${
        result.replacedPassword
          ? html`<p role="status">
              For your safety every browser signed in to your account was signed out, and every application connected to it (Claude, VS Code, Cursor…) was
              disconnected: its access ends now, and each application asks you to sign in again.
            </p>`
          : ''
      }
      <p>
        To connect an AI application (Claude, VS Code, Cursor, Claude Code), add the tool server <code>${toolsResource(config)}</code> to it; it opens the
        sign-in page when it needs you.
      </p>
      <p>
        <a href="${SIGN_IN_PAGE_PATH}?return_to=${encodeURIComponent(CONSOLE_PATHS.overview)}">Sign in to the console</a> to run your organization's account and
        see your connected applications.
      </p>`,
  );
}

// ---- sign in ------------------------------------------------------------------------------

export function signInForm(
  ctx: Context,
  config: Config,
  keys: PurposeKeys,
  handle: string | null,
  message: string | null,
  status = 200,
  email = '',
  returnTo: string | null = null,
): void {
  const session = ensureSessionValue(ctx, config);
  sendPage(
    ctx,
    'Sign in',
    html` ${errorNote(message)}
      <form method="post" action="${SIGN_IN_PAGE_PATH}">
        ${hidden('csrf_token', csrfToken(session, keys))} ${handle ? hidden('request', handle) : ''} ${!handle && returnTo ? hidden('return_to', returnTo) : ''}
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" value="${email}" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Sign in</button>
      </form>
      <p><a href="${PASSWORD_RESET_PAGE_PATH}">Forgot password?</a></p>
      ${passkeySignInControl(csrfToken(session, keys), handle, returnTo)}`,
    status,
    PASSKEY_PAGE_CONTENT_SECURITY_POLICY,
  );
}

async function signInPage(ctx: Context, config: Config, stores: Stores, now: () => number, keys: PurposeKeys): Promise<void> {
  const handle = handleOf(typeof ctx.query.request === 'string' ? ctx.query.request : null);
  const user = await sessionUser(stores, sessionValueOf(ctx, config), new Date(now()));
  if (user) return handle ? resumeAuthorization(ctx, config, stores, handle, user, new Date(now())) : redirectTo(ctx, landingOf(ctx.query.return_to));
  signInForm(ctx, config, keys, handle, null, 200, '', safeReturnPath(ctx.query.return_to));
}

async function signInSubmit(ctx: Context, config: Config, decoy: DecoyPasswordHash, now: () => number, stores: Stores, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const handle = handleOf(form.get('request'));
  const email = form.get('email') ?? '';
  const result = await signIn(stores, decoy, email, form.get('password') ?? '', ctx.ip, new Date(now()));
  if (!result.ok) {
    if (result.retryAfterSeconds) ctx.set('Retry-After', String(result.retryAfterSeconds));
    const status = result.retryAfterSeconds ? 429 : 401;
    return signInForm(ctx, config, keys, handle, result.message, status, email.slice(0, 320), safeReturnPath(form.get('return_to')));
  }
  const next = { handle, returnTo: form.get('return_to') };
  if (await hasSecondFactor(stores, result.user)) return askForSecondFactor(ctx, config, stores, result.user, next, new Date(now()));
  await completeSignIn(ctx, config, keys, stores, result.user, next, new Date(now()));
}

async function signedInUser(ctx: Context, config: Config, stores: Stores, now: () => number): Promise<UserRecord | null> {
  return sessionUser(stores, sessionValueOf(ctx, config), new Date(now()));
}

// ---- consent ------------------------------------------------------------------------------

function consentForm(
  ctx: Context,
  config: Config,
  keys: PurposeKeys,
  handle: string,
  pending: PendingAuthorization,
  user: UserRecord,
  view: ConsentView,
  status = 200,
): void {
  const session = sessionValueOf(ctx, config)!;
  sendPage(
    ctx,
    'Allow access?',
    html` ${errorNote(view.message)}
      <p><strong>${pending.clientName}</strong> wants to use the talent platform tools on your behalf.</p>
      <p>After you answer, you will be sent back to <strong>${redirectHostOf(pending.redirectUri)}</strong>.</p>
      <p>Signed in as ${user.email}. The application will be able to act with your permissions:</p>
      <ul>
        ${user.permissions.map((p) => html`<li>${PERMISSION_TEXT[p] ?? p} <span class="note">(${p})</span></li>`)}
      </ul>
      <form method="post" action="${CONSENT_PAGE_PATH}">
        ${hidden('csrf_token', csrfToken(session, keys))} ${hidden('request', handle)} ${allowanceFieldset(view.policy, view.choice)}
        <p class="note">Application id: ${pending.clientId}. You can change what it may do, or revoke access, at any time under Connected applications.</p>
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>`,
    status,
  );
}

interface ConsentView {
  policy: AgentPolicy;
  choice: AllowanceChoice;
  message: string | null;
}

async function consentPage(ctx: Context, config: Config, stores: Stores, now: () => number, keys: PurposeKeys): Promise<void> {
  const handle = handleOf(typeof ctx.query.request === 'string' ? ctx.query.request : null);
  if (!handle) return errorPage(ctx, 400, 'Sign-in request expired', 'This sign-in request has expired or was already completed.');
  const user = await signedInUser(ctx, config, stores, now);
  if (!user) return redirectTo(ctx, `${SIGN_IN_PAGE_PATH}?request=${handle}`);
  if (await sentToEnrol(ctx, stores, user)) return;
  const pending = await findPending(stores, handle, new Date(now()));
  if (!pending) return errorPage(ctx, 400, 'Sign-in request expired', 'This sign-in request has expired or was already completed.');
  const policy = await agentPolicyOf(stores, user.orgId);
  consentForm(ctx, config, keys, handle, pending, user, { policy, choice: proposedChoice(policy), message: null });
}

async function consentSubmit(ctx: Context, config: Config, stores: Stores, now: () => number, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const handle = handleOf(form.get('request'));
  const user = await signedInUser(ctx, config, stores, now);
  if (!user) return redirectTo(ctx, handle ? `${SIGN_IN_PAGE_PATH}?request=${handle}` : SIGN_IN_PAGE_PATH);
  const pending = handle ? await findPending(stores, handle, new Date(now())) : null;
  if (!handle || !pending) return errorPage(ctx, 400, 'Sign-in request expired', 'This sign-in request has expired or was already completed.');
  const decision = form.get('decision');
  if (decision === 'deny') {
    if (!(await finishPending(stores, handle)))
      return errorPage(ctx, 400, 'Sign-in request expired', 'This sign-in request has expired or was already completed.');
    return redirectTo(
      ctx,
      authorizationResponseUrl(pending.redirectUri, config.authUrl, pending.state, { error: 'access_denied', description: 'The person declined access.' }),
    );
  }
  if (decision !== 'allow') return errorPage(ctx, 400, 'Answer missing', 'Choose Allow or Deny.');
  const policy = await agentPolicyOf(stores, user.orgId);
  // A form posted without a choice (no radio sent) takes what the page proposed.
  const read = readAllowanceChoice(form, proposedChoice(policy));
  const refusal = read.ok ? allowanceRefusalUnder(policy, read.allowance) : read.message;
  if (!read.ok || refusal) return consentForm(ctx, config, keys, handle, pending, user, { policy, choice: read.choice, message: refusal }, 400);
  const grant = await recordConsent(
    stores,
    {
      userId: user._id,
      orgId: user.orgId,
      clientId: pending.clientId,
      clientName: pending.clientName,
      scope: pending.scope,
      allowance: read.allowance,
    },
    new Date(now()),
  );
  return completeAuthorization(ctx, config, stores, handle, pending, user, grant, new Date(now()));
}

// ---- connected applications ---------------------------------------------------------------

const CONNECTION_DONE: Record<string, string> = {
  allowance: "The allowance is saved: it holds from the application's next call.",
  revoked: 'The application is disconnected: its access ended now.',
};

function connectionRow(g: GrantRecord, policy: AgentPolicy, spent: AgentSpendSummary | undefined, csrf: string): TableCell[] {
  const chosen = allowanceOfGrant(g);
  const inForce = effectiveAllowance(chosen, policy);
  const lowered = allowanceText(inForce) !== allowanceText(chosen);
  return [
    { className: 'wrap', body: html`${g.clientName}<br /><span class="note">${g.clientId}</span>` },
    {
      className: lowered ? 'wrap' : undefined,
      body: html`${allowanceText(inForce)}${lowered ? html`<br /><span class="note">You chose ${allowanceText(chosen)}; your organization's policy lowers it.</span>` : ''}`,
    },
    { body: `${spent?.today ?? 0} credits` },
    { body: `${spent?.last30Days ?? 0} credits` },
    { body: g.createdAt.toISOString().slice(0, 10) },
    {
      className: 'actions',
      ownLabel: true,
      body: html`<a href="${allowancePath(g._id)}">Change allowance</a>
        <form method="post" action="${REVOKE_CONNECTION_PATH}">
          ${hidden('csrf_token', csrf)}${hidden('client_id', g.clientId)}<button type="submit">Revoke</button>
        </form>`,
    },
  ];
}

async function connectionsPage(ctx: Context, config: Config, now: () => number, stores: Stores, keys: PurposeKeys): Promise<void> {
  const user = await signedInUser(ctx, config, stores, now);
  if (!user) return redirectTo(ctx, SIGN_IN_PAGE_PATH);
  if (await sentToEnrol(ctx, stores, user)) return;
  const session = sessionValueOf(ctx, config)!;
  const csrf = csrfToken(session, keys);
  const grants = await listGrants(stores, user._id);
  const [policy, spend] = await Promise.all([
    agentPolicyOf(stores, user.orgId),
    agentSpendOf(
      stores,
      grants.map((g) => g._id),
      utcDayOf(new Date(now())),
    ),
  ]);
  const done = typeof ctx.query.done === 'string' ? CONNECTION_DONE[ctx.query.done] : undefined;
  // One of the console's pages: its navigation, stylesheet and CSP.
  sendConsolePage(ctx, {
    title: 'Connected applications',
    visitor: await layoutOf(stores, user, csrf),
    current: CONNECTIONS_PAGE_PATH,
    status: done,
    body: html`<p>Signed in as ${user.email}. Each application acts with your permissions, within the allowance you gave it; a day is a UTC day.</p>
      ${
        grants.length === 0
          ? html`<p>No application is connected to your account.</p>`
          : stackingTable(
              'Connected applications',
              ['Application', 'Allowance', 'Spent today', 'Last 30 days', 'Allowed on', 'Actions'],
              grants.map((g) => connectionRow(g, policy, spend.get(g._id), csrf)),
            )
      }`,
  });
}

async function revokeSubmit(ctx: Context, config: Config, stores: Stores, now: () => number, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  const user = await signedInUser(ctx, config, stores, now);
  if (!user) return redirectTo(ctx, SIGN_IN_PAGE_PATH);
  const clientId = form.get('client_id');
  // The console's flash cookie is scoped to /console, so this page (outside it) says what a write did through `?done=`.
  if (clientId) await revokeUserGrants(stores, user._id, clientId, { actor: `user:${user._id}`, clientAddress: ctx.ip || null, at: new Date(now()) });
  redirectTo(ctx, clientId ? `${CONNECTIONS_PAGE_PATH}?done=revoked` : CONNECTIONS_PAGE_PATH);
}

async function signOutSubmit(ctx: Context, config: Config, stores: Stores, keys: PurposeKeys): Promise<void> {
  const form = await readPageForm(ctx);
  if (!form || !csrfValid(ctx, config, keys, form)) return csrfRefused(ctx);
  await endSession(stores, sessionValueOf(ctx, config));
  clearSessionCookie(ctx, config);
  redirectTo(ctx, SIGN_IN_PAGE_PATH);
}

/** Mounts the pages (DECISIONS.md "Interactive sign-in"): set password, sign in, consent, connected applications. */
export function mountSignInPages(router: Router, config: Config, decoy: DecoyPasswordHash, now: () => number, stores: Stores, keys: PurposeKeys): void {
  const serve = (handler: (ctx: Context, config: Config, stores: Stores, now: () => number, keys: PurposeKeys) => Promise<void>) =>
    storeOutagePage((ctx: Context) => handler(ctx, config, stores, now, keys));
  router.get(SETUP_PAGE_PATH, serve(setupPage));
  router.post(
    SETUP_PAGE_PATH,
    serve((ctx) => setupSubmit(ctx, config, stores, now, keys)),
  );
  router.get(SIGN_IN_PAGE_PATH, serve(signInPage));
  router.post(
    SIGN_IN_PAGE_PATH,
    serve((ctx) => signInSubmit(ctx, config, decoy, now, stores, keys)),
  );
  router.get(CONSENT_PAGE_PATH, serve(consentPage));
  router.post(CONSENT_PAGE_PATH, serve(consentSubmit));
  router.get(
    CONNECTIONS_PAGE_PATH,
    serve((ctx) => connectionsPage(ctx, config, now, stores, keys)),
  );
  router.post(
    REVOKE_CONNECTION_PATH,
    serve((ctx) => revokeSubmit(ctx, config, stores, now, keys)),
  );
  router.post(
    SIGN_OUT_PATH,
    serve((ctx) => signOutSubmit(ctx, config, stores, keys)),
  );
}
