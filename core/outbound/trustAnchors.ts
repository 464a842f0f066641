import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/**
 * What one app's outbound HTTPS to customers' URLs trusts: the system roots, plus the certificate
 * in WEBHOOK_EXTRA_CA_FILE when one is set (undefined: the system roots alone). Each file is read
 * once per app, and the same array comes back every time, so the pinned fetch builds its TLS
 * context for it once. The root builds one (core/deps.ts), so an app naming another file, or a
 * test's app, has its own.
 */
export class TrustAnchors {
  private readonly byFile = new Map<string, string[]>();

  of(extraCaFile: string | undefined): string[] | undefined {
    if (!extraCaFile) return undefined;
    let ca = this.byFile.get(extraCaFile);
    if (!ca) {
      ca = [...rootCertificates, readFileSync(extraCaFile, 'utf8')];
      this.byFile.set(extraCaFile, ca);
    }
    return ca;
  }
}
