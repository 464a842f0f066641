import { html, type SafeHtml } from '../views/safeHtml';

/**
 * Paging of the console's long tables: `?page=N` (1 when absent or not a page number), and the
 * "Previous page" / "Next page" links under a table.
 */
export function pageNumber(value: unknown): number {
  return typeof value === 'string' && /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : 1;
}

export function pager(path: string, label: string, page: number, more: boolean): SafeHtml {
  return html`<nav class="pager" aria-label="${label}">
    ${page > 1 ? html`<a href="${path}?page=${page - 1}">Previous page</a>` : ''} ${more ? html`<a href="${path}?page=${page + 1}">Next page</a>` : ''}
  </nav>`;
}
