import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loopbackCertificate } from './loopbackCertificate';

/**
 * The loopback certificate of local webhooks: `npm run dev` makes it once (kept in its data
 * folder, renewed when it has less than a week left) and has its worker trust it
 * (WEBHOOK_EXTRA_CA_FILE); `webhook listen` serves HTTPS with it on 127.0.0.1. Valid for
 * 127.0.0.1, ::1 and localhost only.
 */
export interface WebhookCertificateFiles {
  certFile: string;
  keyFile: string;
}

const RENEW_BEFORE_MS = 7 * 24 * 3600_000;

export async function ensureWebhookCertificate(dir: string, now = new Date()): Promise<WebhookCertificateFiles> {
  const files = { certFile: join(dir, 'webhook-cert.pem'), keyFile: join(dir, 'webhook-key.pem') };
  if (existsSync(files.certFile) && existsSync(files.keyFile)) {
    const validTo = new Date(new X509Certificate(readFileSync(files.certFile)).validTo).getTime();
    if (validTo - now.getTime() > RENEW_BEFORE_MS) return files;
  }
  const pems = await loopbackCertificate({ now, validDays: 365 });
  mkdirSync(dir, { recursive: true });
  writeFileSync(files.certFile, pems.cert);
  writeFileSync(files.keyFile, pems.key, { mode: 0o600 });
  return files;
}
