import { securityPolicyOf } from '../../../core/tenancy/securityPolicy';
import { html } from '../../views/safeHtml';
import { requireAdmin } from '../consoleErrors';
import { seeOtherSaying } from '../consoleLayout';
import { CONSOLE_PATHS } from '../consolePaths';
import { requireSudoMode } from '../consoleVisitor';
import { postForm } from '../formControls';
import { carriedValues, type SettingsSection } from './settingsSection';

/**
 * Settings' "Require two-factor authentication" (DECISIONS.md "Accounts, settings …"): once on,
 * whoever in the organization has no second factor is taken to enrol on their next page and can
 * do nothing else until they have. Saving needs sudo mode and is audited (`security_policy.updated`).
 */
export const SECURITY_POLICY_PATH = `${CONSOLE_PATHS.settings}/security`;

export const securityPolicySection: SettingsSection = {
  async render(ctx, visitor, _kept, stores) {
    const carried = carriedValues(ctx, ['require_second_factor'])?.require_second_factor;
    const required = carried ? carried === 'on' : (await securityPolicyOf(stores, visitor.user.orgId)).require_second_factor;
    return html`<section aria-labelledby="security-policy">
      <h2 id="security-policy">Security policy</h2>
      ${postForm(
        SECURITY_POLICY_PATH,
        visitor.csrf,
        html`<input type="hidden" name="require_second_factor" value="off" />
          <div class="check">
            <label for="require_second_factor"
              ><input
                id="require_second_factor"
                name="require_second_factor"
                type="checkbox"
                value="on"
                aria-describedby="policy-note"
                ${required ? html`checked` : ''}
              />Require two-factor authentication</label
            >
            <p class="note" id="policy-note">Everyone in your organization without a second factor is asked to set one up before anything else.</p>
          </div>
          <button type="submit">Save security policy</button>`,
      )}
    </section>`;
  },
  mount(pages) {
    pages.post(SECURITY_POLICY_PATH, async (ctx, visitor, form, { road, now, stores }) => {
      requireAdmin(visitor);
      // An unchecked box sends only the hidden "off"; a checked one sends both, and "on" wins.
      const value = form.getAll('require_second_factor').includes('on') ? 'on' : 'off';
      if (!(await requireSudoMode(ctx, stores, visitor, `${CONSOLE_PATHS.settings}?${new URLSearchParams({ require_second_factor: value })}`, now()))) return;
      await road.run(ctx, visitor, 'console.settings.security_policy', { body: { require_second_factor: value } });
      seeOtherSaying(
        ctx,
        CONSOLE_PATHS.settings,
        value === 'on' ? 'Two-factor authentication is now required in your organization.' : 'Two-factor authentication is no longer required.',
      );
    });
  },
};
