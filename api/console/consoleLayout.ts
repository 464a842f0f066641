import type { Context } from 'koa';
import { hidden, htmlDocument } from '../views/pageRendering';
import { html, type SafeHtml } from '../views/safeHtml';
import { setPageHeaders } from '../views/pageSecurity';
import { SIGN_OUT_PATH } from '../oauth/pagePaths';
import { CONSOLE_PATHS, type NavEntry } from './consolePaths';
import { leaveFlash, takeFlash } from './flash';
import { mayChange, READ_ONLY_NOTE, type Reader } from './pageAccess';

/**
 * The frame of every console page: skip link, who is signed in, the navigation (DECISIONS.md
 * order) with the current page marked, "Sign out" as a CSRF-protected form, then the page's
 * `<h1>` and body. Styles and the script come from the service itself (consoleAssets.ts), which
 * is all the console's CSP allows: no inline style or script.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface LayoutVisitor {
  email: string;
  role: string;
  csrf: string;
  /** The organization's name, which heads every page. */
  orgName: string;
  /** The pages this person may read (consolePaths.ts `navigationFor`). */
  nav: readonly NavEntry[];
}

export interface ConsolePageContent {
  title: string;
  body: SafeHtml;
  /** Whose page it is: null on pages shown to someone not signed in (no navigation then). */
  visitor: LayoutVisitor | null;
  /** The path of the navigation entry to mark as the current page. */
  current?: string;
  /**
   * What a write just did, said on the page it answered with. A page reached by a redirect
   * after a write shows the confirmation the write left instead (flash.ts).
   */
  status?: SafeHtml | string;
}

function navigation(entries: readonly NavEntry[], current: string | undefined): SafeHtml {
  return html`<nav aria-label="Console">
    <ul>
      ${entries.map((entry) => html`<li><a href="${entry.path}" ${entry.path === current ? html`aria-current="page"` : ''}>${entry.label}</a></li>`)}
    </ul>
  </nav>`;
}

/** A page with changes only admins make says so, in one sentence, to anyone else who reads it. */
export function readOnlyNote(reader: Pick<Reader, 'role'>): SafeHtml {
  return mayChange(reader) ? html`` : html`<p class="note read-only">${READ_ONLY_NOTE}</p>`;
}

/** The confirmation of a write, announced to screen readers (DECISIONS.md: `<div role="status">`). */
function statusBanner(status: SafeHtml | string | null | undefined): SafeHtml {
  return status ? html`<div role="status" class="status banner">${status}</div>` : html``;
}

export function renderConsolePage(content: ConsolePageContent): string {
  const { visitor } = content;
  const header = visitor
    ? html`<header>
        <div class="bar">
          <span class="brand">${visitor.orgName}<span class="vh"> — </span><span class="product">Talent platform console</span></span>
          <span class="who">${visitor.email} (${visitor.role})</span>
          <form class="signout" method="post" action="${SIGN_OUT_PATH}">${hidden('csrf_token', visitor.csrf)}<button type="submit">Sign out</button></form>
        </div>
        ${navigation(visitor.nav, content.current)}
      </header>`
    : html`<header>
        <div class="bar"><span class="brand">Talent platform console</span></div>
      </header>`;
  return htmlDocument(
    content.title,
    html`<link rel="stylesheet" href="${CONSOLE_PATHS.stylesheet}" />
      <script src="${CONSOLE_PATHS.script}" defer></script>`,
    html`<a class="skip" href="#content">Skip to content</a>
      ${header}
      <main id="content">
        <h1>${content.title}</h1>
        ${statusBanner(content.status)} ${content.body}
      </main>`,
  );
}

/** Security headers of a console page: the sign-in pages' ones, with the console's own CSP. */
export function setConsoleHeaders(ctx: Context): void {
  setPageHeaders(ctx, CONSOLE_CONTENT_SECURITY_POLICY);
}

export function sendConsolePage(ctx: Context, content: ConsolePageContent, status = 200): void {
  setConsoleHeaders(ctx);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  const flash = takeFlash(ctx);
  ctx.body = renderConsolePage({ ...content, status: content.status ?? flash ?? undefined });
}

/** After a write: back to `location`, which then shows `done`, what the write did (flash.ts). */
export function seeOtherSaying(ctx: Context, location: string, done: string): void {
  leaveFlash(ctx, done);
  seeOther(ctx, location);
}

export function seeOther(ctx: Context, location: string): void {
  setConsoleHeaders(ctx);
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.body = '';
}

/** A secret shown once (DECISIONS.md): in `<code id="new-secret">`, with "Copy" beside it (the script shows the button). */
export function secretBlock(secret: string, label: string): SafeHtml {
  return html`<div class="secret">
    <code id="new-secret" aria-label="${label}">${secret}</code>
    <button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button>
  </div>`;
}

/** A table in a frame named by its caption (a region a keyboard can reach, since it may scroll). */
function framedTable(frameClass: string, caption: string, head: string[], rows: SafeHtml[]): SafeHtml {
  return html`<div class="${frameClass}" role="region" aria-label="${caption}" tabindex="0">
    <table>
      <caption class="vh">
        ${caption}
      </caption>
      <thead>
        <tr>
          ${head.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

/** A table that scrolls sideways on its own on a narrow screen, instead of the page. */
export function scrollingTable(caption: string, head: string[], rows: SafeHtml[]): SafeHtml {
  return framedTable('table-wrap', caption, head, rows);
}

/**
 * A cell of a stacking table. `ownLabel` marks a cell whose content carries its own label (a
 * form's labelled field), which therefore is not shown its column's name again.
 */
export interface TableCell {
  body: SafeHtml | string;
  className?: string;
  ownLabel?: boolean;
}

/**
 * A table of few columns whose rows hold forms: on a narrow screen each row stacks into a block,
 * each cell under its column's name (the stylesheet's `.stacking`), so a phone shows the forms
 * whole instead of scrolling sideways to them. Each row's cells are in the order of `head`.
 */
export function stackingTable(caption: string, head: string[], rows: TableCell[][]): SafeHtml {
  const row = (cells: TableCell[]) =>
    html`<tr>
      ${cells.map((c, i) => html`<td${c.className ? html` class="${c.className}"` : ''}${c.ownLabel ? '' : html` data-label="${head[i]}"`}>${c.body}</td>`)}
    </tr>`;
  return framedTable('table-wrap stacking', caption, head, rows.map(row));
}

export function dateText(value: Date | string | null | undefined): string {
  if (!value) return '—';
  const d = typeof value === 'string' ? new Date(value) : value;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
