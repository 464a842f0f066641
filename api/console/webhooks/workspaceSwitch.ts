import { hidden } from '../../views/pageRendering';
import { html, type SafeHtml } from '../../views/safeHtml';
import type { WorkspaceChoice } from './consoleWorkspaces';

/** The "Workspace" select of a webhook page's GET form; a hidden field when the organization has one workspace. */
export function workspaceSelect(choices: readonly WorkspaceChoice[], selected: string): SafeHtml {
  if (choices.length < 2) return hidden('workspace', selected);
  return html`<label for="workspace">Workspace</label>
    <select id="workspace" name="workspace">
      ${choices.map((c) => html`<option value="${c.id}" ${c.id === selected ? html`selected` : ''}>${c.label}</option>`)}
    </select>`;
}

/** A form that only switches the workspace shown; nothing when there is only one. */
export function workspaceSwitch(action: string, choices: readonly WorkspaceChoice[], selected: string): SafeHtml {
  if (choices.length < 2) return html``;
  return html`<form method="get" action="${action}">
    ${workspaceSelect(choices, selected)}
    <button type="submit" class="secondary">Show</button>
  </form>`;
}
