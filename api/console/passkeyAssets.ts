import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import { asset, serve } from './consoleAssets';
import { CONSOLE_PATHS } from './consolePaths';

/**
 * The two scripts of the passkey forms (the console's "Add a passkey" and "Confirm with a passkey",
 * the sign-in page's "Sign in with a passkey"), served by the service so both pages keep `script-src 'self'`: the browser
 * build of @simplewebauthn/browser from node_modules, and the few lines that drive it. A form
 * marked `data-passkey` asks its `data-options` URL (a POST with the form's CSRF token) for the
 * ceremony's options, lets the browser create or use a passkey, puts the answer in the form's
 * `credential` field and posts the form as any other. Passkeys need JavaScript: without it the
 * page says so (a `<noscript>` note) and the rest of the page works.
 */
const PASSKEY_SCRIPT = `
(function () {
  var lib = window.SimpleWebAuthnBrowser;
  var supported = !!(lib && lib.browserSupportsWebAuthn());
  document.querySelectorAll('[data-passkey-unsupported]').forEach(function (note) { note.hidden = supported; });
  if (!supported) return;
  function say(form, text) {
    var note = form.querySelector('[data-passkey-error]');
    if (!note) return;
    note.textContent = text;
    note.hidden = !text;
  }
  document.querySelectorAll('form[data-passkey]').forEach(function (form) {
    var busy = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (busy) return;
      busy = true;
      say(form, '');
      var register = form.getAttribute('data-passkey') === 'register';
      var notDone = form.getAttribute('data-passkey') === 'confirm' ? 'Not confirmed: ' : 'You were not signed in: ';
      var body = new URLSearchParams();
      body.set('csrf_token', form.querySelector('input[name=csrf_token]').value);
      fetch(form.getAttribute('data-options'), { method: 'POST', body: body, credentials: 'same-origin' })
        .then(function (answer) {
          if (!answer.ok) throw new Error('options');
          return answer.json();
        })
        .then(function (options) {
          return register ? lib.startRegistration({ optionsJSON: options }) : lib.startAuthentication({ optionsJSON: options });
        })
        .then(function (credential) {
          form.querySelector('input[name=credential]').value = JSON.stringify(credential);
          form.submit();
        })
        .catch(function (err) {
          busy = false;
          var cancelled = err && (err.name === 'NotAllowedError' || err.name === 'AbortError');
          if (register && err && err.name === 'InvalidStateError') return say(form, 'No passkey was added: this device already holds one for your account.');
          say(form, cancelled
            ? (register ? 'No passkey was added: the browser was cancelled or timed out.' : notDone + 'the browser was cancelled or timed out.')
            : (register ? 'No passkey was added: this browser or device could not create one.' : notDone + 'this browser could not use a passkey.'));
        });
    });
  });
})();
`;

/** The browser build's file: the package's exports do not list it, so it is found beside its entry point. */
function webAuthnBrowserBundle(): string {
  const entry = require.resolve('@simplewebauthn/browser');
  return readFileSync(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

export function mountPasskeyAssets(router: Router): void {
  router.get(CONSOLE_PATHS.webAuthnScript, serve(asset('text/javascript; charset=utf-8', webAuthnBrowserBundle())));
  router.get(CONSOLE_PATHS.passkeyScript, serve(asset('text/javascript; charset=utf-8', PASSKEY_SCRIPT)));
}

/** The script tags a page with a passkey form carries (in this order: the library, then its driver). */
export const PASSKEY_SCRIPT_PATHS = [CONSOLE_PATHS.webAuthnScript, CONSOLE_PATHS.passkeyScript] as const;
