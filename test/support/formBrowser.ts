/**
 * A browser's cookie jar and form posting, enough to walk the sign-in pages over plain HTTP
 * where a real browser would only slow a test down (test/e2e drives the real one).
 */
export class FormBrowser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  async request(path: string, init: { method?: string; form?: Record<string, string> | URLSearchParams } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
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

/** The value of a hidden form field of a page (CSRF token, request handle). */
export function formField(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no field ${name}`);
  return m[1];
}
