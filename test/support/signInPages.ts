import { request, type APIRequestContext, type Locator, type Page } from 'playwright-core';
import { formField } from './formBrowser';
import type { LoopbackRedirect } from './loopbackRedirect';

/**
 * What a person does on the sign-in pages, through the labels and button names DECISIONS.md
 * fixes ("Interactive sign-in for the tool server"): finding a control by its label or role is
 * itself the test that the pages are labelled.
 */

/** Opens the one-time setup link and chooses a password; returns the page's answer status. */
export async function setPasswordFromLink(page: Page, setupUrl: string, password: string): Promise<number> {
  await page.goto(setupUrl);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && r.request().isNavigationRequest()),
    page.getByRole('button', { name: 'Set password' }).click(),
  ]);
  await page.waitForLoadState();
  return answer.status();
}

/** Clicks a form's button and waits until its page is gone (the browser moved on to the answer). */
export async function submitWith(page: Page, button: string): Promise<void> {
  await submitWithin(page.locator('body'), button);
}

/** `submitWith` for the one button of that name inside a part of the page (a table row). */
export async function submitWithin(scope: Locator, button: string): Promise<void> {
  const page = scope.page();
  const handle = await scope.getByRole('button', { name: button, exact: true }).elementHandle();
  if (!handle) throw new Error(`no "${button}" button on ${page.url()}`);
  await handle.click();
  // The old page's button goes away: hidden, or detached (which playwright reports as an error).
  await handle.waitForElementState('hidden').catch((err: Error) => {
    if (!/not attached/i.test(err.message)) throw err;
  });
  await page.waitForLoadState();
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await submitWith(page, 'Sign in');
}

export interface AuthorizeOutcome {
  callback: URL;
  /** Whether a sign-in form and a consent page were shown on the way. */
  signedIn: boolean;
  consented: boolean;
  /** The consent page's visible text, when one was shown. */
  consentText?: string;
}

/**
 * Opens an authorization URL and goes through whatever the server asks (sign-in when there is
 * no session, consent when none is remembered) until the browser lands on the client's
 * loopback redirect, which delivers the callback URL.
 */
export async function authorizeInBrowser(
  page: Page,
  authorizationUrl: string,
  loopback: LoopbackRedirect,
  person: { email: string; password: string },
  decision: 'Allow' | 'Deny' = 'Allow',
  /** What the person does on the consent page before answering (choose what the application may do). */
  onConsent?: (page: Page) => Promise<void>,
): Promise<AuthorizeOutcome> {
  // Only a callback that arrives after this point belongs to this authorization.
  const stop = new AbortController();
  const callback = loopback.callbackAt(loopback.callbacks.length, { timeoutMs: 60_000, signal: stop.signal });
  const arrived = callback.then(
    () => 'callback' as const,
    (err: Error) => err,
  );
  let signedIn = false;
  let consented = false;
  let consentText: string | undefined;
  const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
  const consentButton = page.getByRole('button', { name: decision, exact: true });
  try {
    await page.goto(authorizationUrl);
    for (;;) {
      const next = await Promise.race([
        arrived,
        signInButton.waitFor({ timeout: 60_000 }).then(() => 'sign-in' as const),
        consentButton.waitFor({ timeout: 60_000 }).then(() => 'consent' as const),
      ]);
      if (next instanceof Error) throw next;
      if (next === 'callback') break;
      if (next === 'sign-in') {
        if (signedIn) throw new Error(`the sign-in form came back after signing in: ${await page.locator('body').innerText()}`);
        signedIn = true;
        await signIn(page, person.email, person.password);
      } else {
        if (consented) throw new Error('the consent page came back after a decision');
        consented = true;
        consentText = await page.locator('body').innerText();
        await onConsent?.(page);
        await submitWith(page, decision);
      }
    }
    return { callback: await callback, signedIn, consented, consentText };
  } finally {
    stop.abort();
  }
}

/**
 * Sets the password through the setup link's form, posted with `http` as the page posts it (no page
 * rendered); answers the status of the post.
 */
export async function setPasswordWith(http: APIRequestContext, setupUrl: string, password: string): Promise<number> {
  const page = await (await http.get(setupUrl)).text();
  const set = await http.post(new URL(new URL(setupUrl).pathname, setupUrl).href, {
    form: { csrf_token: formField(page, 'csrf_token'), token: formField(page, 'token'), new_password: password, confirm_password: password },
  });
  return set.status();
}

/** Sets the password from the setup link with a request client of its own (disposed after), leaving every browser context signed out. */
export async function setPasswordOverHttp(setupUrl: string, password: string): Promise<number> {
  const http = await request.newContext();
  try {
    return await setPasswordWith(http, setupUrl, password);
  } finally {
    await http.dispose();
  }
}
