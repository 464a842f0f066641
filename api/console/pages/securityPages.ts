import type { Context } from 'koa';
import { offerTotpSecret, pendingTotpOffer, type TotpOffer } from '../../../core/users/authenticatorApp';
import { RECOVERY_CODE_COUNT } from '../../../core/users/secondFactor';
import { anySecondFactor, mustEnrolSecondFactor, secondFactorsOf, type SecondFactors } from '../../../core/users/secondFactors';
import { findActiveUser } from '../../../core/users/users';
import { errorNote } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import { dateText, seeOther, seeOtherSaying, sendConsolePage } from '../consoleLayout';
import type { ConsoleDeps, ConsolePages } from '../consolePages';
import { CONSOLE_PATHS } from '../consolePaths';
import type { ConsoleVisitor } from '../consoleVisitor';
import { postForm, textInput } from '../formControls';
import type { AuthenticatorAppTurnedOn, RecoveryCodesGenerated } from '../operations/securityOperations';
import { qrCodeSvg } from '../qrCode';
import { mountPasskeysSection, passkeysSection, type ShowSecurity } from '../security/passkeysSection';
import { keepingTheForm } from '../formRefusals';

/**
 * `/console/security` "Security" (every person; DECISIONS.md "Accounts, settings …"): the person's
 * own second factors, one section per kind in this order. "Passkeys" is rendered by the passkeys
 * module as the first of SECURITY_SECTIONS; "Authenticator app" (set up by QR code or the secret
 * as text, confirmed with a first code; turned off in sudo mode) and "Recovery codes" (ten, shown
 * once, new ones in sudo mode) are here. Each write is audited and mailed (securityOperations.ts).
 */
export const REMOVE_AUTHENTICATOR_APP_PATH = `${CONSOLE_PATHS.authenticatorApp}/remove`;
export const RECOVERY_CODES_PATH = `${CONSOLE_PATHS.security}/recovery-codes`;

export interface SecuritySection {
  render: (visitor: ConsoleVisitor, factors: SecondFactors) => SafeHtml;
}

const authenticatorAppSection: SecuritySection = {
  render: (visitor, factors) =>
    html`<section aria-labelledby="authenticator-app">
      <h2 id="authenticator-app">Authenticator app</h2>
      ${
        factors.authenticatorApp
          ? html`<p>On since ${dateText(visitor.user.totpEnabledAt)}. Signing in asks for a code from the app after your password.</p>
              ${postForm(REMOVE_AUTHENTICATOR_APP_PATH, visitor.csrf, html`<button type="submit" class="secondary">Turn off authenticator app</button>`)}`
          : html`<p>An app on your phone (1Password, Google Authenticator, Microsoft Authenticator…) gives a new 6-digit code every 30 seconds.</p>
              <p><a href="${CONSOLE_PATHS.authenticatorApp}">Set up authenticator app</a></p>`
      }
    </section>`,
};

const recoveryCodesSection: SecuritySection = {
  render: (visitor, factors) => {
    const generate = postForm(RECOVERY_CODES_PATH, visitor.csrf, html`<button type="submit" class="secondary">Generate new recovery codes</button>`);
    const body = !anySecondFactor(factors)
      ? html`<p>You get ten recovery codes when you turn on a second factor.</p>`
      : factors.recoveryCodes === 0
        ? html`<p>You have no recovery codes. Each one signs you in once in place of your second factor, if you lose your phone or your passkeys.</p>
            ${generate}`
        : html`<p>
              ${factors.recoveryCodes} of ${RECOVERY_CODE_COUNT} left. Each one signs you in once in place of your second factor, if you lose your phone or your
              passkeys. New ones replace every old one.
            </p>
            ${generate}`;
    return html`<section aria-labelledby="recovery-codes-heading">
      <h2 id="recovery-codes-heading">Recovery codes</h2>
      ${body}
    </section>`;
  },
};

/** The page's sections after "Passkeys" (security/passkeysSection.ts), in order. */
const SECURITY_SECTIONS: readonly SecuritySection[] = [authenticatorAppSection, recoveryCodesSection];

const ENROL_NOTE = 'Your organization requires two-factor authentication: set up a second factor to go on using the console.';

const securityPage: ShowSecurity = async (ctx, visitor, { config, stores }, passkeys, status = 200) => {
  const factors = await secondFactorsOf(stores, visitor.user);
  const enrol = await mustEnrolSecondFactor(stores, visitor.user);
  sendConsolePage(
    ctx,
    {
      title: 'Security',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.security,
      body: html`${enrol ? html`<p class="error" role="alert">${ENROL_NOTE}</p>` : ''}
        <p>How you sign in as ${visitor.user.email}: your password and, with a second factor, something only you hold.</p>
        ${await passkeysSection(stores, visitor, config.authUrl, passkeys)} ${SECURITY_SECTIONS.map((s) => s.render(visitor, factors))}`,
    },
    status,
  );
};

function setupPage(ctx: Context, visitor: ConsoleVisitor, offer: TotpOffer, message: string | null, enrol: boolean, status = 200): void {
  sendConsolePage(
    ctx,
    {
      title: 'Set up authenticator app',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.security,
      body: html`${enrol ? html`<p>${ENROL_NOTE}</p>` : ''}
        <ol>
          <li>Scan this QR code with your authenticator app.</li>
        </ol>
        ${qrCodeSvg(offer.uri, 'QR code of your authenticator app secret')}
        <p id="secret-note">Or type this secret into the app by hand (time-based, 6 digits):</p>
        <div class="secret"><code id="totp-secret" aria-describedby="secret-note">${offer.secret}</code></div>
        <ol start="2">
          <li>Type the 6-digit code the app shows now.</li>
        </ol>
        ${errorNote(message)}
        ${postForm(
          CONSOLE_PATHS.authenticatorApp,
          visitor.csrf,
          html`${textInput('code', 'Code', { digits: true, maxLength: 6, autocomplete: 'one-time-code' })} <button type="submit">Turn on</button>`,
        )}
        <p><a href="${CONSOLE_PATHS.security}">Cancel</a></p>`,
    },
    status,
  );
}

/** "Your recovery codes": shown once, on a page never cached (the console's headers say no-store). */
function recoveryCodesPage(ctx: Context, visitor: ConsoleVisitor, codes: readonly string[], done: string, status = 201): void {
  sendConsolePage(
    ctx,
    {
      title: 'Your recovery codes',
      visitor: visitor.layout,
      current: CONSOLE_PATHS.security,
      status: done,
      body: html`<p>
          Keep these ${codes.length} codes somewhere safe, apart from your phone (a password manager, or printed). Each signs you in once in place of a code.
          They are shown only now.
        </p>
        <ul id="recovery-codes" class="codes">
          ${codes.map((c) => html`<li><code>${c}</code></li>`)}
        </ul>
        <p><a href="${CONSOLE_PATHS.security}">Back to Security</a></p>`,
    },
    status,
  );
}

export function mountSecurityPages(pages: ConsolePages): void {
  pages.get(CONSOLE_PATHS.security, (ctx, visitor, deps) => securityPage(ctx, visitor, deps, {}));
  mountPasskeysSection(pages, securityPage);
  pages.get(CONSOLE_PATHS.authenticatorApp, async (ctx, visitor, { purposeKeys, stores }) => {
    if ((await secondFactorsOf(stores, visitor.user)).authenticatorApp) return seeOther(ctx, CONSOLE_PATHS.security);
    setupPage(ctx, visitor, await offerTotpSecret(stores, purposeKeys, visitor.user), null, await mustEnrolSecondFactor(stores, visitor.user));
  });
  pages.post(CONSOLE_PATHS.authenticatorApp, async (ctx, visitor, form, deps) => {
    await keepingTheForm(
      async () => {
        const result = await deps.road.run(ctx, visitor, 'console.security.enable_authenticator_app', {
          body: { code: (form.get('code') ?? '').slice(0, 20) },
        });
        const turnedOn = result.body as AuthenticatorAppTurnedOn;
        recoveryCodesPage(ctx, visitor, turnedOn.recovery_codes, 'The authenticator app is on. Signing in now asks for a code from it.');
      },
      (_message, status, problem) => refusedCode(ctx, visitor, deps, problem.detail, status),
    );
  });
  pages.post(REMOVE_AUTHENTICATOR_APP_PATH, async (ctx, visitor, _form, { road }) => {
    await road.run(ctx, visitor, 'console.security.disable_authenticator_app', { body: {} });
    seeOtherSaying(ctx, CONSOLE_PATHS.security, 'The authenticator app is off. Signing in no longer asks for its codes.');
  });
  pages.post(RECOVERY_CODES_PATH, async (ctx, visitor, _form, { road }) => {
    const result = await road.run(ctx, visitor, 'console.security.generate_recovery_codes', { body: {} });
    recoveryCodesPage(ctx, visitor, (result.body as RecoveryCodesGenerated).recovery_codes, 'New recovery codes are made: the old ones work no more.');
  });
}

/** A wrong first code: the same secret again (the person already scanned it), or a new one when it was replaced. */
async function refusedCode(ctx: Context, visitor: ConsoleVisitor, { purposeKeys, stores }: ConsoleDeps, message: string, status: number): Promise<void> {
  const user = (await findActiveUser(stores, visitor.user._id)) ?? visitor.user;
  const offer = pendingTotpOffer(purposeKeys, user) ?? (await offerTotpSecret(stores, purposeKeys, user));
  setupPage(ctx, visitor, offer, message, await mustEnrolSecondFactor(stores, user), status);
}
