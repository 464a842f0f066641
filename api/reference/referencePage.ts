import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Router from '@koa/router';

/**
 * The API reference: the OpenAPI document at /openapi.json and a page at /docs that Redoc
 * renders from it in the browser. Redoc's standalone bundle is served from its npm package
 * (no CDN), and the page runs under a CSP that allows only this origin: scripts from files
 * here, styles from here or carrying the page's nonce (Redoc's styled-components inject
 * <style> elements, and Redoc gives them the nonce it is initialised with).
 */
export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/openapi.json';
const BUNDLE_PATH = '/docs/redoc.standalone.js';
const INIT_PATH = '/docs/reference.js';

/**
 * Redoc's sidebar credit shows Redocly's logo from their CDN, which the page's CSP blocks (a
 * violation and a console error on every visit). The bundle is served with that address
 * replaced by an empty data: URL: the image fails to load, and Redoc's own error handler then
 * leaves the logo out, keeping the credit's text.
 */
export const REDOCLY_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** Redoc's bundle, read on first use, so an app that never serves the page never reads 1 MB. */
function redocBundleReader(): () => Buffer {
  let bundle: Buffer | undefined;
  return () => {
    if (!bundle) {
      const source = readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
      if (!source.includes(REDOCLY_LOGO_URL)) throw new Error('the Redoc bundle no longer names the Redocly logo where the reference page expects it');
      bundle = Buffer.from(source.split(REDOCLY_LOGO_URL).join('data:,'), 'utf8');
    }
    return bundle;
  };
}

/**
 * The stylesheet of Redoc's scroll bars (perfect-scrollbar) is inserted when the bundle loads,
 * before Redoc hands out the nonce, first empty and then filled: those two exact contents are
 * allowed by hash. A new Redoc version with other contents fails the browser test
 * (test/e2e/referencePage.test.ts), which prints the hashes the browser asks for.
 */
const REDOC_STYLE_HASHES = ["'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='", "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='"];

export function docsContentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}' ${REDOC_STYLE_HASHES.join(' ')}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

// Initialises Redoc with the document and the nonce of the script element that loaded it.
const INIT_SCRIPT = `(function () {
  var nonce = document.currentScript.nonce;
  Redoc.init('openapi.json', { nonce: nonce, expandResponses: '200,201,202', hideDownloadButton: false, jsonSampleExpandLevel: 3 }, document.getElementById('reference'));
})();
`;

function page(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Talent platform developer API reference</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">body { margin: 0; padding: 0; }
/* Long commands and samples wrap inside their box instead of running past its edge. */
#reference pre, #reference pre code { white-space: pre-wrap !important; overflow-wrap: anywhere; word-break: break-word; }
#reference pre { max-width: 100%; box-sizing: border-box; }</style>
</head>
<body>
<noscript>This page needs JavaScript; the document itself is at <a href="openapi.json">/openapi.json</a>.</noscript>
<div id="reference"></div>
<script src="docs/redoc.standalone.js"></script>
<script src="docs/reference.js" nonce="${nonce}"></script>
</body>
</html>
`;
}

/** `buildDocument` runs at the first request for the document: an app that never serves it (most test apps) never builds it. */
export function referenceRouter(buildDocument: () => Record<string, unknown>): Router {
  const redocBundle = redocBundleReader();
  const router = new Router({ sensitive: true, strict: true });
  let document: Record<string, unknown> | undefined;
  router.get(OPENAPI_PATH, (ctx) => {
    document ??= buildDocument();
    ctx.body = document;
  });
  router.get(DOCS_PATH, (ctx) => {
    const nonce = randomBytes(16).toString('base64');
    ctx.set('Content-Security-Policy', docsContentSecurityPolicy(nonce));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(nonce);
  });
  router.get(BUNDLE_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = redocBundle();
  });
  router.get(INIT_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = INIT_SCRIPT;
  });
  return router;
}

/** The reference's own paths in the document. */
export function referenceOpenApiPaths(): Record<string, unknown> {
  const common = { tags: ['Reference'], security: [] };
  const script = (operationId: string, summary: string) => ({
    get: {
      ...common,
      operationId,
      summary,
      responses: {
        200: { description: 'JavaScript', content: { 'application/javascript': { schema: { type: 'string' }, example: '(function () { /* … */ })();\n' } } },
        '4XX': { $ref: '#/components/responses/RequestRefused' },
      },
    },
  });
  return {
    [OPENAPI_PATH]: {
      get: {
        ...common,
        operationId: 'openApiDocument',
        summary: 'This OpenAPI 3.1 document',
        responses: {
          200: {
            description: 'The document',
            content: {
              'application/json': {
                schema: { type: 'object' },
                example: { openapi: '3.1.0', info: { title: 'Talent platform developer API', version: '1.0.0' }, paths: {} },
              },
            },
          },
          '4XX': { $ref: '#/components/responses/RequestRefused' },
        },
      },
    },
    [DOCS_PATH]: {
      get: {
        ...common,
        operationId: 'referencePage',
        summary: 'The API reference page (rendered from this document)',
        responses: {
          200: {
            description: 'HTML',
            content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html>\n<html lang="en">…<div id="reference"></div>…</html>\n' } },
          },
          '4XX': { $ref: '#/components/responses/RequestRefused' },
        },
      },
    },
    [BUNDLE_PATH]: script('referencePageRenderer', 'The renderer of the reference page (Redoc, from its npm package)'),
    [INIT_PATH]: script('referencePageScript', 'The script that starts the renderer on the reference page'),
  };
}
