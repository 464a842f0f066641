import { createHash } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { CONSOLE_PATHS } from './consolePaths';

/**
 * The console's one stylesheet and one script, served by the service itself so the pages' CSP
 * can stay `'self'` only. The script only enhances: "Copy" buttons beside a secret shown once,
 * and a confirmation before a destructive button; every page works without it.
 */
const STYLESHEET = `
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0b57d0;--danger:#b3261e;--ok:#1a7f37;color-scheme:light}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:1rem;line-height:1.5;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
caption.vh,.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem}
.skip:focus{left:.5rem}
header{border-bottom:1px solid var(--line);background:var(--soft)}
.bar{max-width:80rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
.brand{font-weight:600;margin-right:auto;overflow-wrap:anywhere;min-width:0}
.brand .product{display:block;font-weight:400;font-size:.8rem;color:var(--muted)}
.banner{border:1px solid var(--ok);background:#eef8f0;padding:.5rem .75rem;border-radius:.375rem;margin:0 0 1rem;max-width:48rem;overflow-wrap:anywhere}
.who{color:var(--muted);font-size:.875rem;overflow-wrap:anywhere}
nav ul{list-style:none;margin:0;padding:.25rem 1rem;display:flex;flex-wrap:wrap;gap:.25rem .5rem;max-width:80rem;margin:0 auto}
nav a{display:inline-block;padding:.35rem .5rem;border-radius:.375rem;text-decoration:none}
nav a:hover{background:#e7ecf2}
nav a[aria-current=page]{background:var(--accent);color:#fff}
.signout{margin:0}
main{max-width:80rem;margin:0 auto;padding:1rem 1rem 3rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
p{max-width:48rem}
main p,main li{overflow-wrap:anywhere}
label{display:block;margin:.9rem 0 .25rem;font-weight:600}
fieldset{border:1px solid var(--line);border-radius:.375rem;margin:1rem 0;padding:.5rem 1rem 1rem;max-width:36rem}
legend{font-weight:600;padding:0 .25rem}
fieldset label{display:flex;align-items:center;gap:.5rem;font-weight:400;margin:.4rem 0}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=date],input[type=url],select{display:block;width:100%;max-width:36rem;padding:.45rem .5rem;font:inherit;border:1px solid #8c959f;border-radius:.375rem;background:#fff;color:var(--fg)}
input[type=checkbox]{width:1.1rem;height:1.1rem}
button,.button{display:inline-block;font:inherit;padding:.45rem 1rem;margin:.75rem .5rem 0 0;border:1px solid var(--accent);border-radius:.375rem;background:var(--accent);color:#fff;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger)}
.bar button{margin:0;padding:.3rem .75rem;background:#fff;color:var(--accent)}
.table-wrap{position:relative;overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid var(--line);border-radius:.375rem;margin:1rem 0}
table{border-collapse:collapse;width:100%;font-size:.925rem}
th,td{text-align:left;vertical-align:top;padding:.45rem .6rem;border-bottom:1px solid var(--line);white-space:nowrap}
thead th{background:var(--soft)}
td.wrap{white-space:normal;min-width:7rem;overflow-wrap:anywhere}
td.when{white-space:normal;min-width:6.5rem}
td.who{min-width:13rem}
td code{overflow-wrap:normal;white-space:nowrap}
tbody tr:last-child td{border-bottom:0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
.secret{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:1rem 0}
.secret code{display:block;padding:.6rem .75rem;border:1px solid var(--line);border-radius:.375rem;background:var(--soft);max-width:100%;user-select:all}
.secret button{margin:0}
.note{color:var(--muted)}
.qr{display:block;width:12rem;max-width:100%;height:auto;margin:1rem 0}
.codes{columns:2 9rem;font-family:ui-monospace,monospace;font-size:1.05rem;padding-left:1.5rem}
.id{color:var(--muted);font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8em;overflow-wrap:anywhere}
.error{color:var(--danger);font-weight:600}
.status{color:var(--ok)}
.pager{display:flex;gap:1rem;margin:1rem 0}
.actions a{margin-right:.75rem}
.actions form{display:inline-block}
form.inline{display:inline}
form.inline button{margin:0 0 0 .5rem;padding:.2rem .6rem}
.filters{display:flex;flex-wrap:wrap;gap:0 1rem;align-items:flex-end}
.filters>div{flex:1 1 14rem;max-width:24rem}
.filters>div:last-child{flex:0 0 auto}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.25rem 1rem;margin:.5rem 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.timeline ol{padding-left:1.25rem}
.timeline li{margin:.25rem 0}
.timeline li.planned{color:var(--muted)}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(10.5rem,1fr));gap:.75rem;margin:.5rem 0 1rem;max-width:56rem}
.figures div{border:1px solid var(--line);border-radius:.375rem;padding:.5rem .75rem;background:var(--soft)}
.figures dt{font-size:.875rem;color:var(--muted)}
.figures dd{margin:0;font-size:1.15rem;font-weight:600;overflow-wrap:anywhere}
.plain{list-style:none;padding:0}
.payload{background:var(--soft);border:1px solid var(--line);border-radius:.375rem;padding:.75rem;max-width:56rem;white-space:pre-wrap;overflow-wrap:anywhere}
.permission{margin:.4rem 0}
.check label{display:flex;align-items:center;gap:.5rem}
.check .note{margin:.25rem 0 0 1.6rem}
.permission label{margin:0}
.permission .note{display:block;margin-left:1.6rem;font-size:.875rem}
.chart{margin:1rem 0 2rem;max-width:56rem}
.chart figcaption{font-weight:600;margin-bottom:.25rem}
.chart svg.plot{display:block;width:100%;height:auto}
.plot-and-legend{display:flex;flex-wrap:wrap;align-items:flex-start;gap:.5rem 1rem}
.plot-and-legend svg.plot{flex:1 1 20rem;min-width:0}
.legend{list-style:none;display:flex;flex-direction:column;gap:.25rem;padding:0;margin:.5rem 0;font-size:.875rem;flex:0 1 14rem;min-width:0;overflow-wrap:anywhere}
.legend li{display:flex;align-items:center;gap:.35rem}
.legend svg{flex:none;width:12px;height:12px}
.table-scroll{overflow-x:auto}
.choices{display:flex;flex-wrap:wrap;gap:.25rem .5rem;list-style:none;padding:0}
.choices a{display:inline-block;padding:.3rem .6rem;border:1px solid var(--line);border-radius:.375rem;text-decoration:none}
.choices a[aria-current=true]{background:var(--accent);color:#fff;border-color:var(--accent)}
@media (max-width:40rem){h1{font-size:1.35rem}main{padding:.75rem .75rem 2rem}nav ul{padding:.25rem .5rem}}
@media (max-width:40rem){
.table-wrap thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.table-wrap table,.table-wrap tbody,.table-wrap tr,.table-wrap td,.table-wrap th[scope=row]{display:block}
.table-wrap tr{padding:.35rem 0;border-bottom:1px solid var(--line)}
.table-wrap tbody tr:last-child{border-bottom:0}
.table-wrap td,.table-wrap th[scope=row]{border-bottom:0;white-space:normal;padding:.2rem .6rem;min-width:0;overflow-wrap:anywhere}
.table-wrap td[data-label]{display:flow-root;padding-left:7.85rem}
.table-wrap td[data-label]::before{content:attr(data-label);font-weight:600;float:left;margin-left:-7.25rem;width:6.5rem;overflow-wrap:normal}
.table-wrap td code{white-space:normal;overflow-wrap:anywhere}
}
`;

const SCRIPT = `
(function () {
  document.querySelectorAll('[data-copy]').forEach(function (button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    if (!target || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        button.textContent = 'Copied';
        setTimeout(function () { button.textContent = 'Copy'; }, 2000);
      });
    });
  });
  document.querySelectorAll('input[data-select-all]').forEach(function (all) {
    var boxes = all.form ? all.form.querySelectorAll('input[type=checkbox][name="' + all.getAttribute('data-select-all') + '"]') : [];
    all.addEventListener('change', function () {
      boxes.forEach(function (box) { box.checked = all.checked; });
    });
    boxes.forEach(function (box) {
      box.addEventListener('change', function () {
        if (!box.checked) all.checked = false;
      });
    });
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
})();
`;

export interface Asset {
  type: string;
  body: string;
  etag: string;
}

export function asset(type: string, body: string): Asset {
  return { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
}

export function serve(a: Asset) {
  return (ctx: Context) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('ETag', a.etag);
    if (ctx.get('If-None-Match') === a.etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = a.type;
    ctx.body = a.body;
  };
}

export function mountConsoleAssets(router: Router): void {
  router.get(CONSOLE_PATHS.stylesheet, serve(asset('text/css; charset=utf-8', STYLESHEET)));
  router.get(CONSOLE_PATHS.script, serve(asset('text/javascript; charset=utf-8', SCRIPT)));
}
