import { randomBytes } from 'node:crypto';
import { createUser } from '../../core/users/users';
import { FormBrowser, formField } from './formBrowser';
import type { FormPerson } from './formSignIn';
import type { TestApi } from './testApi';

/**
 * People's accounts over plain HTTP: a person made as the operator does, their password set
 * through the link, signed in on the sign-in page; and a console form posted with the page's
 * CSRF token. The browser tests (test/e2e) drive the same pages in chromium.
 */
export const PASSWORD = 'correct horse battery staple';

/** Opens a one-time link (setup, invitation or reset) and chooses `password`; answers the page. */
export async function setPasswordThrough(browser: FormBrowser, link: string, password: string) {
  const url = new URL(link);
  const page = await browser.request(url.pathname + url.search);
  if (page.status !== 200) return page;
  return browser.request(url.pathname, {
    form: { csrf_token: formField(page.text, 'csrf_token'), token: formField(page.text, 'token'), new_password: password, confirm_password: password },
  });
}

export async function signInOnPage(browser: FormBrowser, email: string, password: string) {
  const page = await browser.request('/api/oauth/signin');
  return browser.request('/api/oauth/signin', { form: { csrf_token: formField(page.text, 'csrf_token'), email, password } });
}

/** A person of `tenant` with `role`, password set and signed in. */
export async function signedInPerson(
  srv: TestApi,
  tenant: { orgId: string; workspaceId: string },
  opts: { role?: 'admin' | 'member'; permissions?: string[]; email?: string } = {},
): Promise<FormPerson> {
  const email = opts.email ?? `p${randomBytes(6).toString('hex')}@example.com`;
  const created = await createUser(
    srv.deps.stores,
    srv.config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email,
      permissions: opts.permissions ?? ['candidates.search'],
      role: opts.role ?? 'member',
    },
    new Date(srv.deps.now()),
  );
  const browser = new FormBrowser(srv.url);
  const set = await setPasswordThrough(browser, created.setup_url, PASSWORD);
  if (set.status !== 200) throw new Error(`setting the password answered ${set.status}`);
  const signedIn = await signInOnPage(browser, email, PASSWORD);
  if (signedIn.status !== 303) throw new Error(`signing in answered ${signedIn.status}`);
  return { userId: created.user_id, email, password: PASSWORD, browser };
}

/** Posts a console form the way its page would: with the CSRF token of the page at `pagePath`. */
export async function postConsoleForm(browser: FormBrowser, pagePath: string, action: string, fields: Record<string, string>) {
  const page = await browser.request(pagePath);
  return browser.request(action, { form: { csrf_token: formField(page.text, 'csrf_token'), ...fields } });
}
