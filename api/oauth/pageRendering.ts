/**
 * Server-rendered HTML of the sign-in pages: plain forms that work without JavaScript, every
 * control labelled, every interpolated value escaped. No page loads anything from elsewhere.
 */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Marks a fragment that is already HTML (built only from escaped parts). */
export interface Html {
  html: string;
}

export function html(strings: TemplateStringsArray, ...values: Array<unknown>): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    out += renderValue(v) + strings[i + 1];
  });
  return { html: out };
}

function renderValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(renderValue).join('');
  if (v && typeof v === 'object' && 'html' in v) return (v as Html).html;
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(v);
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;line-height:1.5}' +
  'label{display:block;margin-top:1rem}input[type=email],input[type=password],input[type=text]{width:100%;padding:.4rem;font-size:1rem}' +
  'button{margin-top:1rem;margin-right:.5rem;padding:.4rem 1rem;font-size:1rem}.error{color:#a00}.note{color:#555}' +
  'table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem;border-bottom:1px solid #ddd}' +
  'main{overflow-wrap:anywhere}fieldset{border:1px solid #ccc;padding:.5rem 1rem;margin:1rem 0;min-width:0}legend{font-weight:600}.choice{margin:.6rem 0}' +
  '.choice>label{display:inline;margin:0 0 0 .4rem}.choice .nested,.choice .note{margin-left:1.6rem}' +
  '.choice input[type=text]{margin-left:1.6rem;width:8rem;padding:.4rem;font-size:1rem}';

/**
 * The one HTML document every page is: the head both page kinds share (charset, viewport, no
 * referrer, the title), then what a page kind adds to the head and its body.
 */
export function htmlDocument(title: string, head: Html, body: Html): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Talent platform</title>
${head.html}
</head>
<body>
${body.html}
</body>
</html>
`;
}

export function page(title: string, body: Html): string {
  return htmlDocument(
    title,
    { html: `<style>${STYLE}</style>` },
    html`<main>
      <h1>${title}</h1>
      ${body}
    </main>`,
  );
}

export function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

export function errorNote(message: string | null | undefined): Html {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}
