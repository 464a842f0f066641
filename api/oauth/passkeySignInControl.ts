import { PASSKEY_SCRIPT_PATHS } from '../console/passkeyAssets';
import { hidden } from '../views/pageRendering';
import { html, type SafeHtml } from '../views/safeHtml';
import { CONTENT_SECURITY_POLICY } from '../views/pageSecurity';
import { PASSKEY_SIGN_IN_OPTIONS_PATH, PASSKEY_SIGN_IN_PATH } from './pagePaths';

/**
 * "Sign in with a passkey" on the sign-in page (DECISIONS.md "Accounts, settings …"): a form the
 * passkey script (api/console/passkeyAssets.ts) completes with the browser's answer. The page that
 * carries it loads that script from the service and fetches the ceremony's options from it, so its
 * CSP adds exactly `script-src 'self'` and `connect-src 'self'` to the sign-in pages' own.
 */
export const PASSKEY_PAGE_CONTENT_SECURITY_POLICY = `${CONTENT_SECURITY_POLICY}; script-src 'self'; connect-src 'self'`;

export function passkeySignInControl(csrf: string, handle: string | null, returnTo: string | null): SafeHtml {
  return html`<form method="post" action="${PASSKEY_SIGN_IN_PATH}" data-passkey="sign-in" data-options="${PASSKEY_SIGN_IN_OPTIONS_PATH}">
      ${hidden('csrf_token', csrf)} ${hidden('credential', '')} ${handle ? hidden('request', handle) : ''}
      ${!handle && returnTo ? hidden('return_to', returnTo) : ''}
      <p class="error" role="alert" data-passkey-error hidden></p>
      <noscript><p class="note">Signing in with a passkey needs JavaScript, which is off in this browser.</p></noscript>
      <p class="note" data-passkey-unsupported hidden>This browser cannot use passkeys.</p>
      <button type="submit">Sign in with a passkey</button>
    </form>
    ${PASSKEY_SCRIPT_PATHS.map((src) => html`<script src="${src}"></script>`)}`;
}
