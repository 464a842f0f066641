import { createHash, randomBytes } from 'node:crypto';
import { createUser } from '../../core/users/users';
import { FormBrowser, formField } from './formBrowser';
import type { TestApi } from './testApi';

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface FormPerson {
  userId: string;
  email: string;
  password: string;
  browser: FormBrowser;
}

/** A user created as the operator does, whose password is set through the setup link. */
export async function newFormPerson(srv: TestApi, tenant: { orgId: string; workspaceId: string }, permissions: string[]): Promise<FormPerson> {
  const email = `p${randomBytes(6).toString('hex')}@example.com`;
  const created = await createUser(
    srv.deps.stores,
    srv.config,
    { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions },
    new Date(srv.deps.now()),
  );
  const password = 'correct horse battery staple';
  const browser = new FormBrowser(srv.url);
  const setup = new URL(created.setup_url);
  const page = await browser.request(setup.pathname + setup.search);
  if (page.status !== 200) throw new Error(`setup page answered ${page.status}`);
  const done = await browser.request('/api/oauth/setup', {
    form: { csrf_token: formField(page.text, 'csrf_token'), token: formField(page.text, 'token'), new_password: password, confirm_password: password },
  });
  if (done.status !== 200) throw new Error(`setting the password answered ${done.status}`);
  return { userId: created.user_id, email, password, browser };
}

/** Starts an authorization, signs in and consents as needed; returns the redirect back to the client. */
export async function authorizeAs(person: FormPerson, params: Record<string, string>): Promise<URL> {
  let res = await person.browser.request(`/api/oauth/authorize?${new URLSearchParams(params)}`);
  for (let step = 0; step < 6; step++) {
    if (res.status !== 303) throw new Error(`authorization step answered ${res.status}: ${res.text.slice(0, 200)}`);
    const loc = res.location!;
    if (!loc.startsWith('/')) return new URL(loc);
    if (loc.startsWith('/api/oauth/signin')) {
      const page = await person.browser.request(loc);
      res = await person.browser.request('/api/oauth/signin', {
        form: { csrf_token: formField(page.text, 'csrf_token'), request: formField(page.text, 'request'), email: person.email, password: person.password },
      });
    } else if (loc.startsWith('/api/oauth/consent')) {
      const page = await person.browser.request(loc);
      res = await person.browser.request('/api/oauth/consent', {
        form: { csrf_token: formField(page.text, 'csrf_token'), request: formField(page.text, 'request'), decision: 'allow' },
      });
    } else {
      res = await person.browser.request(loc);
    }
  }
  throw new Error('too many authorization steps');
}
