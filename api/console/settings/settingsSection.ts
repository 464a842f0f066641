import type { Context } from 'koa';
import type { Html } from '../../oauth/pageRendering';
import type { ConsolePages } from '../consolePages';
import type { ConsoleVisitor } from '../consoleVisitor';

/**
 * One section of `/console/settings` (DECISIONS.md "Accounts, settings…"): its heading and form,
 * and the posts that form makes. Each section is its own module, listed in settingsPage.ts in
 * the order the page shows them.
 */
export interface SettingsSection {
  /** The section's `<h2>` and form; `kept` is what the person typed and why it was refused, when it was. */
  render: (visitor: ConsoleVisitor, kept: KeptForm | null) => Promise<Html>;
  /** Mounts the section's posts; `show` answers with the Settings page (a refusal with the form kept). */
  mount: (pages: ConsolePages, show: ShowSettings) => void;
}

export interface KeptForm {
  values: Record<string, string>;
  message: string;
}

export type ShowSettings = (
  ctx: Context,
  visitor: ConsoleVisitor,
  refused: { section: SettingsSection; kept: KeptForm } | null,
  status?: number,
) => Promise<void>;
