import { randomBytes } from 'node:crypto';
import type { Role } from '../../core/users/adminSeats';
import { createUser } from '../../core/users/users';
import { FormBrowser, formField } from './formBrowser';
import type { TestApi } from './testApi';

/**
 * A person of an organization signed in to the console over plain HTTP (cookie jar and forms),
 * for the console's rules tested without a real browser: made as the operator makes them, with
 * a role, the password set through the setup link, then signed in on the sign-in page.
 */
export interface ConsoleSession {
  userId: string;
  email: string;
  browser: FormBrowser;
  /** GET a console page. */
  get: (path: string) => Promise<{ status: number; text: string; headers: Headers; location: string | null }>;
  /** POST a console form with the session's CSRF token (a list of pairs for a field given several times). */
  post: (
    path: string,
    form?: Record<string, string> | [string, string][],
  ) => Promise<{ status: number; text: string; headers: Headers; location: string | null }>;
  /** Types the password again on "Confirm your password": sudo mode from the app's clock's now. */
  confirmPassword: () => Promise<void>;
}

export const CONSOLE_TEST_PASSWORD = 'correct horse battery staple 12';

export async function consoleSession(
  srv: TestApi,
  tenant: { orgId: string; workspaceId: string },
  role: Role,
  permissions: string[] = ['jobs.v1:read'],
): Promise<ConsoleSession> {
  const email = `c${randomBytes(6).toString('hex')}@example.com`;
  const created = await createUser(
    srv.deps.stores,
    srv.config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email,
      permissions,
      role,
    },
    new Date(srv.deps.now()),
  );
  const browser = new FormBrowser(srv.url);
  const setup = new URL(created.setup_url);
  const setupPage = await browser.request(setup.pathname + setup.search);
  const done = await browser.request('/api/oauth/setup', {
    form: {
      csrf_token: formField(setupPage.text, 'csrf_token'),
      token: formField(setupPage.text, 'token'),
      new_password: CONSOLE_TEST_PASSWORD,
      confirm_password: CONSOLE_TEST_PASSWORD,
    },
  });
  if (done.status !== 200) throw new Error(`setting the password answered ${done.status}`);
  const signInPage = await browser.request('/api/oauth/signin');
  const signedIn = await browser.request('/api/oauth/signin', {
    form: { csrf_token: formField(signInPage.text, 'csrf_token'), email, password: CONSOLE_TEST_PASSWORD },
  });
  if (signedIn.status !== 303) throw new Error(`signing in answered ${signedIn.status}`);
  const overview = await browser.request('/console/overview');
  if (overview.status !== 200) throw new Error(`the overview answered ${overview.status}`);
  const csrf = formField(overview.text, 'csrf_token');
  return {
    userId: created.user_id,
    email,
    browser,
    get: (path) => browser.request(path),
    post: (path, form = {}) =>
      browser.request(path, { form: new URLSearchParams([['csrf_token', csrf], ...(Array.isArray(form) ? form : Object.entries(form))]) }),
    confirmPassword: async () => {
      const confirmed = await browser.request('/console/confirm', { form: { csrf_token: csrf, password: CONSOLE_TEST_PASSWORD } });
      if (confirmed.status >= 400) throw new Error(`confirming the password answered ${confirmed.status}`);
    },
  };
}
