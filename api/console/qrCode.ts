import type { create as createQrCode } from 'qrcode';
import { html, type SafeHtml } from '../views/safeHtml';

/**
 * A QR code drawn as inline SVG markup on the server: one path of dark modules, no script and no
 * image fetched (the console's CSP allows neither a data: image nor inline style).
 */
const QUIET_ZONE = 2;

/**
 * The encoder alone (the package's entry also loads its PNG, terminal and text renderers, which
 * this never draws with): `create` as the package's own types declare it.
 */
const { create } = require('qrcode/lib/core/qrcode') as { create: typeof createQrCode };

export function qrCodeSvg(text: string, label: string): SafeHtml {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const squares: string[] = [];
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (modules.data[row * size + col]) squares.push(`M${col + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`);
    }
  }
  const side = size + 2 * QUIET_ZONE;
  return html`<svg class="qr" viewBox="0 0 ${side} ${side}" role="img" aria-label="${label}" shape-rendering="crispEdges">
    <rect width="${side}" height="${side}" fill="#fff" />
    <path d="${squares.join('')}" fill="#000" />
  </svg>`;
}
