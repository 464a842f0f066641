import type { Context } from 'koa';
import { type SafeHtml } from '../../views/safeHtml';
import type { Stores } from '../../../core/deps';
import type { ConsolePages } from '../consolePages';
import type { ConsoleVisitor } from '../consoleVisitor';

/**
 * One section of `/console/settings` (DECISIONS.md "Accounts, settings and AI application
 * allowances"): its heading and form, and the post that form makes to its own operation. Each
 * section is its own module, listed in settingsPage.ts in the order the page shows them. Every
 * save needs sudo mode (`requireSudoMode`, checked by the section's post before its operation
 * runs, with what was typed carried through the password prompt) and is audited; a saved change
 * comes back to Settings with its confirmation as the console's flash (flash.ts).
 */
export interface SettingsSection {
  /**
   * The section's `<h2>` and form: `kept` is what the person typed and why it was refused, when it
   * was; otherwise what the request's query carries back from the password prompt, or what is stored.
   */
  render: (ctx: Context, visitor: ConsoleVisitor, kept: KeptForm | null, stores: Stores) => Promise<SafeHtml>;
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
  stores: Stores,
  refused: { section: SettingsSection; kept: KeptForm } | null,
  status?: number,
) => Promise<void>;

/** What a GET of Settings carries back in its query (a save sent through "Confirm your password"), as a form's values. */
export function carriedValues(ctx: Context, names: readonly string[]): Record<string, string> | null {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = ctx.query[name];
    if (typeof value !== 'string') return null;
    values[name] = value;
  }
  return values;
}
