import { html, SafeHtml } from '../../api/views/safeHtml';

describe('the html template tag', () => {
  it('escapes every character that could open markup or leave an attribute', () => {
    const value = `<script>alert("x")</script> & 'quoted'`;
    expect(html`<p title="${value}">${value}</p>`.toString()).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;</p>',
    );
  });

  it('inserts a fragment made by the tag as markup, once, without escaping it again', () => {
    const inner = html`<b>${'a & b'}</b>`;
    expect(html`<p>${inner}</p>`.toString()).toBe('<p><b>a &amp; b</b></p>');
  });

  it('escapes an object that only looks like a fragment, as a value from a request or the store would be', () => {
    const forged = { html: '<img src=x onerror=alert(1)>' };
    const out = html`<p>${forged}</p>`.toString();
    expect(out).not.toContain('<img');
    expect(out).toBe('<p>[object Object]</p>');
  });

  it('escapes a string whose toString is markup: only the tag makes markup', () => {
    const sneaky = { toString: () => '<i>x</i>' };
    expect(html`${sneaky}`.toString()).toBe('&lt;i&gt;x&lt;/i&gt;');
  });

  it('renders arrays item by item and renders nothing for null, undefined and false', () => {
    const items = ['<a>', html`<li>b</li>`];
    expect(html`${items}`.toString()).toBe('&lt;a&gt;<li>b</li>');
    expect(html`[${null}${undefined}${false}]`.toString()).toBe('[]');
    expect(html`${0}${true}`.toString()).toBe('0true');
  });

  it('cannot be made outside the tag', () => {
    expect(() => new SafeHtml('<script>', Symbol('minted by the html tag'))).toThrow(TypeError);
  });
});
