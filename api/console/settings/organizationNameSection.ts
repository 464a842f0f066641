import { ORGANIZATION_NAME_MAX_LENGTH } from '../../../core/tenancy/organizationName';
import { errorNote } from '../../views/pageRendering';
import { html } from '../../views/safeHtml';
import { requireAdmin } from '../consoleErrors';
import { seeOtherSaying } from '../consoleLayout';
import { CONSOLE_PATHS } from '../consolePaths';
import { requireSudoMode } from '../consoleVisitor';
import { postForm, textInput } from '../formControls';
import { carriedValues, type SettingsSection } from './settingsSection';
import { keepingTheForm } from '../formRefusals';

/** Settings' "Organization name" with "Save name": the name every console page is headed with. */
export const ORGANIZATION_NAME_PATH = `${CONSOLE_PATHS.settings}/name`;

export const organizationNameSection: SettingsSection = {
  async render(ctx, visitor, kept, stores) {
    const org = await stores.tenancy.findOrganization(visitor.user.orgId);
    // A save sent through "Confirm your password" comes back with the typed name in the query.
    const typed = kept?.values.name ?? carriedValues(ctx, ['name'])?.name;
    return html`<section>
      <h2>Organization name</h2>
      ${errorNote(kept?.message)}
      ${postForm(
        ORGANIZATION_NAME_PATH,
        visitor.csrf,
        html`${textInput('name', 'Organization name', { value: typed ?? org?.name ?? '', maxLength: ORGANIZATION_NAME_MAX_LENGTH })}
          <p class="note">Every page of the console is headed with it, for everyone in your organization.</p>
          <button type="submit">Save name</button>`,
      )}
    </section>`;
  },
  mount(pages, show) {
    pages.post(ORGANIZATION_NAME_PATH, async (ctx, visitor, form, { road, now, stores }) => {
      requireAdmin(visitor);
      const name = form.get('name') ?? '';
      // Every Settings save needs sudo mode; what was typed comes back to the form after the password.
      if (!(await requireSudoMode(ctx, stores, visitor, `${CONSOLE_PATHS.settings}?${new URLSearchParams({ name })}`, now()))) return;
      await keepingTheForm(
        async () => {
          const result = await road.run(ctx, visitor, 'console.settings.rename', { body: { name } });
          seeOtherSaying(ctx, CONSOLE_PATHS.settings, `The organization is now called ${(result.body as { name: string }).name}.`);
        },
        (message, status) => show(ctx, visitor, stores, { section: organizationNameSection, kept: { values: { name }, message } }, status),
      );
    });
  },
};
