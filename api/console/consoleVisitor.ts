import type { Context } from 'koa';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import { roleOf, type Role } from '../../core/users/adminSeats';
import { personPrincipal, type PersonPrincipal } from '../../core/users/personPrincipal';
import { sessionUser } from '../../core/users/sessions';
import { mustEnrolSecondFactor } from '../../core/users/secondFactors';
import { securityPolicyFrom } from '../../core/tenancy/securityPolicy';
import type { OrganizationRecord } from '../../core/tenancy/store';
import { sudoModeActive } from '../../core/users/sudoMode';
import type { UserRecord } from '../../core/users/users';
import { csrfToken, sessionValueOf } from '../views/pageSecurity';
import { SIGN_IN_PAGE_PATH } from '../oauth/pagePaths';
import type { Stores } from '../../core/deps';
import type { UserStores } from '../../core/users/store';
import { CONSOLE_PATHS, CONSOLE_ROOT, navigationFor } from './consolePaths';
import { seeOther, type LayoutVisitor } from './consoleLayout';
import type { ConsoleOperationName } from './consoleOperationNames';
import { needsSudo } from './sudoOperations';

/**
 * The page guard: who is looking at a console page. Every console page needs a signed-in,
 * active person (read from the store on every request, so a disable or sign-out takes effect on
 * the next click); anyone else is sent to the sign-in page, which sends them back here.
 */

export type ConsolePrincipal = PersonPrincipal;

export interface ConsoleVisitor {
  user: UserRecord;
  role: Role;
  sessionValue: string;
  /** The CSRF token every form of this session carries. */
  csrf: string;
  principal: ConsolePrincipal;
  /** The layout's view of the visitor. */
  layout: LayoutVisitor & { role: Role; scopes: readonly string[] };
}

/** What every page's frame shows of a person: their organization's name and the pages they may read. */
export async function layoutOf(
  stores: Stores,
  user: UserRecord,
  csrf: string,
  organization: Promise<OrganizationRecord | null> = stores.tenancy.findOrganization(user.orgId),
): Promise<ConsoleVisitor['layout']> {
  const role = roleOf(user);
  const org = await organization;
  const reader = { role, scopes: user.permissions };
  return { email: user.email, role, csrf, scopes: user.permissions, orgName: org?.name ?? user.orgId, nav: navigationFor(reader) };
}

export function consolePrincipal(user: UserRecord, config: Config): ConsolePrincipal {
  return personPrincipal(user, `${config.authUrl}${CONSOLE_ROOT}`);
}

/** The path (and query) of this request, to come back to after signing in or confirming the password. */
export function hereOf(ctx: Context): string {
  return ctx.method === 'GET' ? ctx.originalUrl : ctx.path;
}

/** Where a person who must enrol a second factor may go: the Security pages, and the password prompt they lead to. */
function enrolmentPath(path: string): boolean {
  return path === CONSOLE_PATHS.security || path.startsWith(`${CONSOLE_PATHS.security}/`) || path === CONSOLE_PATHS.confirm;
}

/** What finding the visitor reads: the app's settings and stores. */
export interface VisitorDeps {
  config: Config;
  stores: Stores;
  /** The app's clock, which sessions expire on. */
  now: () => Date;
  /** The app's purpose keys: the visitor's CSRF token is derived under them. */
  purposeKeys: PurposeKeys;
}

/**
 * The visitor, or null after answering with a redirect: to the sign-in page, or to Security for a
 * person whose organization requires a second factor they do not have yet (they can do nothing
 * else until they have one).
 */
export async function requireVisitor(ctx: Context, { config, stores, now, purposeKeys }: VisitorDeps): Promise<ConsoleVisitor | null> {
  const sessionValue = sessionValueOf(ctx, config);
  const user = sessionValue ? await sessionUser(stores, sessionValue, now()) : null;
  if (!user || !sessionValue) {
    seeOther(ctx, `${SIGN_IN_PAGE_PATH}?return_to=${encodeURIComponent(hereOf(ctx))}`);
    return null;
  }
  const csrf = csrfToken(sessionValue, purposeKeys);
  // Independent reads, side by side (every page waits for the guard); one read of the
  // organization gives the frame its name and the second-factor check its policy.
  const organization = stores.tenancy.findOrganization(user.orgId);
  const [mustEnrol, layout] = await Promise.all([
    !enrolmentPath(ctx.path) && mustEnrolSecondFactor(stores, user, () => organization.then(securityPolicyFrom)),
    layoutOf(stores, user, csrf, organization),
  ]);
  if (mustEnrol) {
    seeOther(ctx, CONSOLE_PATHS.security);
    return null;
  }
  const role = roleOf(user);
  return { user, role, sessionValue, csrf, principal: consolePrincipal(user, config), layout };
}

/**
 * Sudo mode when a form that needs it is opened (sudoOperations.ts): true when the browser is in
 * it; otherwise answers with a redirect to "Confirm your password", which sends the person on to
 * `returnTo` afterwards, and returns false. The road checks again when the form is posted.
 */
export async function requireSudoToOpen(
  ctx: Context,
  stores: UserStores,
  visitor: ConsoleVisitor,
  operation: ConsoleOperationName,
  returnTo: string,
  now: Date,
): Promise<boolean> {
  return !needsSudo(operation) || requireSudoMode(ctx, stores, visitor, returnTo, now);
}

/**
 * Sudo mode for a change whose need of it depends on stored state, not on the form alone (raising
 * an allowance, a save whose typed fields come back with the page): true when the browser is in
 * it; otherwise a redirect to "Confirm your password" that returns to `returnTo`, and false.
 */
export async function requireSudoMode(ctx: Context, stores: UserStores, visitor: ConsoleVisitor, returnTo: string, now: Date): Promise<boolean> {
  if (await sudoModeActive(stores, visitor.sessionValue, now)) return true;
  seeOther(ctx, `${CONSOLE_PATHS.confirm}?return_to=${encodeURIComponent(returnTo)}`);
  return false;
}
