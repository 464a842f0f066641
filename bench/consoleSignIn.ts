/** `name=value` of each Set-Cookie of an answer, as a browser would send them back. */
function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(';')[0]);
}

/** Signs in on the sign-in page as a browser does; returns the Cookie header of the signed-in session. */
export async function signInOverHttp(base: string, email: string, password: string): Promise<string> {
  const page = await fetch(`${base}/api/oauth/signin`);
  const pageCookie = cookiesOf(page).join('; ');
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf || !pageCookie) throw new Error('the sign-in page gave no CSRF token or session cookie');
  const answer = await fetch(`${base}/api/oauth/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pageCookie },
    body: new URLSearchParams({ csrf_token: csrf, email, password }).toString(),
  });
  const session = cookiesOf(answer).filter((c) => !c.endsWith('='));
  if (answer.status !== 303 && answer.status !== 302) throw new Error(`signing in answered ${answer.status}`);
  if (!session.length) throw new Error('signing in set no session cookie');
  return session.join('; ');
}
