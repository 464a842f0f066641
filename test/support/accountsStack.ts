import type { Browser } from 'playwright-core';
import type { startApi } from '../../api/server';
import { closeBrowser, launchBrowser } from './browser';
import { createTenant, type TestTenant } from './fixtures';
import { Mailbox } from './mailbox';
import { startSignInApi } from './signInApi';
import type { TestApi } from './testApi';

export interface AccountsStack {
  /** The API, which mails through `mailbox` and sends what it queued every 100 ms. */
  srv: TestApi;
  mailbox: Mailbox;
  tenant: TestTenant;
  browser: Browser;
  /** Stops what started, the browser first. */
  close: () => Promise<void>;
}

/**
 * What the browser tests of people's accounts (invitations, resets, the second factor,
 * passkeys) stand on: a real SMTP receiver, the sign-in API mailing through it, an organization,
 * and chromium. `parts` as for `startApi` (a test's clock); `hostName` as for `startSignInApi`.
 */
export async function startAccountsStack(opts: { parts?: Parameters<typeof startApi>[1]; hostName?: '127.0.0.1' | 'localhost' } = {}): Promise<AccountsStack> {
  const started: Partial<Omit<AccountsStack, 'close'>> = {};
  // Chromium starts in its own processes while the API starts in this one.
  const launching = launchBrowser();
  // Awaited below; a failure meanwhile must not end the process as an unhandled rejection.
  launching.catch(() => undefined);
  const close = async () => {
    await closeBrowser(started.browser ?? (await launching.catch(() => undefined)));
    await started.srv?.close();
    await started.mailbox?.stop();
  };
  try {
    started.mailbox = await Mailbox.start();
    started.srv = await startSignInApi(
      { SMTP_URL: started.mailbox.smtpUrl, MAIL_SENDER_INTERVAL_MS: '100' },
      opts.parts ?? {},
      opts.hostName ? { hostName: opts.hostName } : {},
    );
    started.tenant = await createTenant();
    started.browser = await launching;
  } catch (err) {
    await close();
    throw err;
  }
  return { srv: started.srv, mailbox: started.mailbox, tenant: started.tenant, browser: started.browser, close };
}
