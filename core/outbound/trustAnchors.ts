import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

const byFile = new Map<string, string[]>();

/**
 * What outbound HTTPS to customers' URLs trusts: the system roots, plus the certificate in
 * WEBHOOK_EXTRA_CA_FILE when one is set (undefined: the system roots alone). Each file is read
 * once, and the same array comes back every time, so the pinned fetch builds its TLS context
 * for it once.
 */
export function trustAnchors(extraCaFile: string | undefined): string[] | undefined {
  if (!extraCaFile) return undefined;
  let ca = byFile.get(extraCaFile);
  if (!ca) {
    ca = [...rootCertificates, readFileSync(extraCaFile, 'utf8')];
    byFile.set(extraCaFile, ca);
  }
  return ca;
}
