import { escapedText, html, type SafeHtml } from './safeHtml';

/**
 * The HTML documents people see (sign-in pages and console): plain forms that work without
 * JavaScript, every control labelled, every value escaped by the `html` tag. No page loads
 * anything from elsewhere.
 */
const STYLE = html`<style>
  body {
    font-family: system-ui, sans-serif;
    max-width: 36rem;
    margin: 2rem auto;
    padding: 0 1rem;
    line-height: 1.5;
  }
  label {
    display: block;
    margin-top: 1rem;
  }
  input[type='email'],
  input[type='password'],
  input[type='text'] {
    width: 100%;
    padding: 0.4rem;
    font-size: 1rem;
  }
  button {
    margin-top: 1rem;
    margin-right: 0.5rem;
    padding: 0.4rem 1rem;
    font-size: 1rem;
  }
  .error {
    color: #a00;
  }
  .note {
    color: #555;
  }
  table {
    border-collapse: collapse;
    width: 100%;
  }
  td,
  th {
    text-align: left;
    padding: 0.3rem;
    border-bottom: 1px solid #ddd;
  }
  main {
    overflow-wrap: anywhere;
  }
  fieldset {
    border: 1px solid #ccc;
    padding: 0.5rem 1rem;
    margin: 1rem 0;
    min-width: 0;
  }
  legend {
    font-weight: 600;
  }
  .choice {
    margin: 0.6rem 0;
  }
  .choice > label {
    display: inline;
    margin: 0 0 0 0.4rem;
  }
  .choice .nested,
  .choice .note {
    margin-left: 1.6rem;
  }
  .choice input[type='text'] {
    margin-left: 1.6rem;
    width: 8rem;
    padding: 0.4rem;
    font-size: 1rem;
  }
</style>`;

/**
 * The one HTML document every page is: the head both page kinds share (charset, viewport, no
 * referrer, the title), then what a page kind adds to the head and its body.
 */
export function htmlDocument(title: string, head: SafeHtml, body: SafeHtml): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapedText(title)} · Talent platform</title>
${head.toString()}
</head>
<body>
${body.toString()}
</body>
</html>
`;
}

export function page(title: string, body: SafeHtml): string {
  return htmlDocument(
    title,
    STYLE,
    html`<main>
      <h1>${title}</h1>
      ${body}
    </main>`,
  );
}

export function hidden(name: string, value: string): SafeHtml {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

export function errorNote(message: string | null | undefined): SafeHtml {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}
