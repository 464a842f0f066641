import type { Context } from 'koa';
import { signedInFromBrowser } from '../../core/accounts/securityNotices';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import type { Stores } from '../../core/deps';
import { endSession, SESSION_TTL_MS, startSession } from '../../core/users/sessions';
import type { UserRecord } from '../../core/users/users';
import { CONSOLE_PATHS } from '../console/consolePaths';
import { safeReturnPath } from '../console/returnPath';
import { redirectTo, resumeAuthorization, sentToEnrol } from './authorizationFlow';
import { knownBrowserOf, sessionValueOf, setKnownBrowserCookie, setSessionCookie } from '../views/pageSecurity';
import { TWO_FACTOR_PAGE_PATH } from './pagePaths';
import { CHALLENGE_TTL_MS, startSignInChallenge } from '../../core/users/signInChallenges';

/**
 * The end of every sign-in, after the password alone or after the password and a second factor:
 * a new session (a fresh cookie value, the old one's record ended), the browser remembered and
 * a notice mailed when it is new to the person, then on to enrolment when the organization
 * requires a second factor they lack, to the authorization request, or to the console.
 */
export async function completeSignIn(
  ctx: Context,
  config: Config,
  keys: PurposeKeys,
  stores: Stores,
  user: UserRecord,
  next: AfterSignIn,
  now: Date,
): Promise<void> {
  await endSession(stores, sessionValueOf(ctx, config));
  // Started on the app's clock, which sudo mode's 15 minutes are counted on.
  const session = await startSession(stores, user._id, now);
  setSessionCookie(ctx, config, session.value, Math.floor(SESSION_TTL_MS / 1000));
  const browserValue = await signedInFromBrowser(stores, config, keys, user, knownBrowserOf(ctx, config), { userAgent: ctx.get('User-Agent'), at: now });
  setKnownBrowserCookie(ctx, config, browserValue);
  if (await sentToEnrol(ctx, stores, user)) return;
  if (next.handle) return resumeAuthorization(ctx, config, stores, next.handle, user, now);
  redirectTo(ctx, landingOf(next.returnTo));
}

export interface AfterSignIn {
  /** The pending authorization request, when the sign-in is for one. */
  handle: string | null;
  /** The console page to land on otherwise (checked by `safeReturnPath`). */
  returnTo: unknown;
}

/**
 * The password was right and the person has a second factor: no session yet. The browser gets a
 * fresh value that names the challenge (signInChallenges.ts) and goes to "Two-factor
 * authentication", carrying where it was going.
 */
export async function askForSecondFactor(ctx: Context, config: Config, stores: Stores, user: UserRecord, next: AfterSignIn, now: Date): Promise<void> {
  await endSession(stores, sessionValueOf(ctx, config));
  const value = await startSignInChallenge(stores, user._id, now);
  setSessionCookie(ctx, config, value, Math.floor(CHALLENGE_TTL_MS / 1000));
  redirectTo(ctx, `${TWO_FACTOR_PAGE_PATH}${carriedQuery(next)}`);
}

/** Where the sign-in goes on, as the query of the second-factor page. */
export function carriedQuery(next: AfterSignIn, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams(extra);
  if (next.handle) query.set('request', next.handle);
  else {
    const returnTo = safeReturnPath(next.returnTo);
    if (returnTo) query.set('return_to', returnTo);
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** Where signing in without an authorization request goes: the console page that sent the person here, else its overview. */
export function landingOf(returnTo: unknown): string {
  return safeReturnPath(returnTo) ?? CONSOLE_PATHS.overview;
}
