import { createHash, randomBytes } from 'node:crypto';
import { createUser } from '../../core/users/users';
import type { TestApi } from './testApi';

/**
 * A person signing in through the pages without a browser: a cookie jar and form posts, enough
 * for the setup, sign-in and consent pages (the real-browser tests live in test/e2e).
 */
export class FormBrowser {
  private cookies = new Map<string, string>();

  constructor(private readonly srv: TestApi) {}

  async request(path: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const url = path.startsWith('http') ? path : `${this.srv.url}${path}`;
    const res = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (value === '') this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }
}

export function formField(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no field ${name}`);
  return m[1];
}

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
  const created = await createUser({ orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions });
  const password = 'correct horse battery staple';
  const browser = new FormBrowser(srv);
  const setup = new URL(created.setup_url);
  const page = await browser.request(setup.pathname + setup.search);
  if (page.status !== 200) throw new Error(`setup page answered ${page.status}`);
  const done = await browser.request('/api/oauth/setup', { form: { csrf_token: formField(page.text, 'csrf_token'), token: formField(page.text, 'token'), new_password: password, confirm_password: password } });
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
      res = await person.browser.request('/api/oauth/signin', { form: { csrf_token: formField(page.text, 'csrf_token'), request: formField(page.text, 'request'), email: person.email, password: person.password } });
    } else if (loc.startsWith('/api/oauth/consent')) {
      const page = await person.browser.request(loc);
      res = await person.browser.request('/api/oauth/consent', { form: { csrf_token: formField(page.text, 'csrf_token'), request: formField(page.text, 'request'), decision: 'allow' } });
    } else {
      res = await person.browser.request(loc);
    }
  }
  throw new Error('too many authorization steps');
}
