import { html, type SafeHtml } from '../views/safeHtml';

/**
 * Paging of the console's long tables, the one pager every page uses: `?page=N` (1 when absent or
 * not a page number) with "Previous page" / "Next page" for a table read by page number, and
 * "First page" / "Next page" for a list read with a cursor (the /v1 lists' `next_cursor`), where
 * going back one page is not offered.
 */
export function pageNumber(value: unknown): number {
  return typeof value === 'string' && /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : 1;
}

function pagerNav(label: string, back: { href: string; text: string } | null, next: { href: string; text: string } | null): SafeHtml {
  return html`<nav class="pager" aria-label="${label}">
    ${back ? html`<a href="${back.href}">${back.text}</a>` : ''} ${next ? html`<a href="${next.href}">${next.text}</a>` : ''}
  </nav>`;
}

export function pager(path: string, label: string, page: number, more: boolean): SafeHtml {
  return pagerNav(
    label,
    page > 1 ? { href: `${path}?page=${page - 1}`, text: 'Previous page' } : null,
    more ? { href: `${path}?page=${page + 1}`, text: 'Next page' } : null,
  );
}

/**
 * The links of a cursor-read list: `first` when the page shown is not the first, `next` when more
 * follow. `of` names what is paged where a page has several lists ("of the result").
 */
export function cursorPager(label: string, first: string | null, next: string | null, of = ''): SafeHtml {
  const words = (text: string) => (of ? `${text} ${of}` : text);
  return pagerNav(label, first ? { href: first, text: words('First page') } : null, next ? { href: next, text: words('Next page') } : null);
}
