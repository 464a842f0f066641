import { findOrganization } from '../../../core/tenancy/store';
import { ORGANIZATION_NAME_MAX_LENGTH } from '../../../core/tenancy/organizationName';
import { Problem } from '../../../core/problems';
import { errorNote, html } from '../../oauth/pageRendering';
import { seeOtherSaying } from '../consoleLayout';
import { CONSOLE_PATHS } from '../consolePaths';
import { requireSudo } from '../consoleVisitor';
import { postForm, textInput } from '../formControls';
import type { SettingsSection } from './settingsSection';

/** Settings' "Organization name" with "Save name": the name every console page is headed with. */
export const ORGANIZATION_NAME_PATH = `${CONSOLE_PATHS.settings}/name`;

export const organizationNameSection: SettingsSection = {
  async render(visitor, kept) {
    const org = await findOrganization(visitor.user.orgId);
    return html`<section>
      <h2>Organization name</h2>
      ${errorNote(kept?.message)}
      ${postForm(
        ORGANIZATION_NAME_PATH,
        visitor.csrf,
        html`${textInput('name', 'Organization name', { value: kept?.values.name ?? org?.name ?? '', maxLength: ORGANIZATION_NAME_MAX_LENGTH })}
          <p class="note">Every page of the console is headed with it, for everyone in your organization.</p>
          <button type="submit">Save name</button>`,
      )}
    </section>`;
  },
  mount(pages, show) {
    pages.post(ORGANIZATION_NAME_PATH, async (ctx, visitor, form, { road }) => {
      if (!(await requireSudo(ctx, visitor, CONSOLE_PATHS.settings))) return;
      const name = form.get('name') ?? '';
      try {
        const result = await road.run(ctx, visitor, 'console.settings.rename', { body: { name } });
        seeOtherSaying(ctx, CONSOLE_PATHS.settings, `The organization is now called ${(result.body as { name: string }).name}.`);
      } catch (err) {
        if (!(err instanceof Problem) || err.status !== 422) throw err;
        await show(ctx, visitor, { section: organizationNameSection, kept: { values: { name }, message: `Not saved: ${err.detail}` } }, 422);
      }
    });
  },
};
