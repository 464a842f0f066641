import type { Context } from 'koa';
import { Problem } from '../../core/problems';
import { html } from '../views/safeHtml';
import { CONSOLE_PATHS } from './consolePaths';
import { sendConsolePage, type LayoutVisitor } from './consoleLayout';

/**
 * The console's refusals as pages: "Not allowed" (403) for a write the person's role or
 * permissions do not allow, one "Not found" (404) for an id that does not exist and for one of
 * another organization alike, "Form expired" for a missing or wrong CSRF token, and "Not saved"
 * for any other refusal of an operation, with its reason.
 */
export function notAllowed(detail = 'Only an admin of your organization can make this change.'): Problem {
  return new Problem('insufficient_scope', detail);
}

export function notFoundPage(ctx: Context, visitor: LayoutVisitor | null): void {
  sendConsolePage(
    ctx,
    {
      title: 'Not found',
      visitor,
      body: html`<p role="alert">There is nothing here: the page or the item it names does not exist in your organization.</p>
        <p><a href="${CONSOLE_PATHS.overview}">Go to the overview</a></p>`,
    },
    404,
  );
}

export function notAllowedPage(ctx: Context, visitor: LayoutVisitor | null, detail: string): void {
  sendConsolePage(
    ctx,
    {
      title: 'Not allowed',
      visitor,
      body: html`<p role="alert">${detail}</p>
        <p>Nothing was changed. Ask an admin of your organization if you need this done.</p>`,
    },
    403,
  );
}

export function formExpiredPage(ctx: Context, visitor: LayoutVisitor | null): void {
  sendConsolePage(
    ctx,
    {
      title: 'Form expired',
      visitor,
      body: html`<p role="alert">This form could not be verified (its security token is missing or does not match). Nothing was changed.</p>
        <p>Go back, reload the page and try again.</p>`,
    },
    403,
  );
}

/** A refusal thrown by an operation or a page, as the page that says so. */
export function problemPage(ctx: Context, visitor: LayoutVisitor | null, problem: Problem): void {
  if (problem.status === 404) return notFoundPage(ctx, visitor);
  if (problem.status === 403) return notAllowedPage(ctx, visitor, problem.detail);
  if (problem.headers['Retry-After']) ctx.set('Retry-After', problem.headers['Retry-After']);
  sendConsolePage(
    ctx,
    {
      title: 'Not saved',
      visitor,
      body: html`<p role="alert" class="error">${problem.detail}</p>
        <p>Nothing was changed. Go back, correct it and try again.</p>`,
    },
    problem.status,
  );
}
