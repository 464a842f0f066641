import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/**
 * PEM files of a private CA, a server certificate it signed for `SERVER_NAME` (a name no
 * resolver answers, so a connection by the host's own name, `localhost`, passes only with the
 * server name set), and client certificates.
 */
export interface TemporalTlsFiles {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** Signed by the CA: the proxy accepts it. */
  clientCert: string;
  clientKey: string;
  /** Signed by another CA: the proxy refuses it. */
  strangerCert: string;
  strangerKey: string;
}

/** The one name in the server certificate. */
export const SERVER_NAME = 'temporal.test';

const ec = { keyType: 'ec', curve: 'P-256', algorithm: 'sha256' } as const;

async function authority(cn: string) {
  return generate([{ name: 'commonName', value: cn }], {
    ...ec,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
}

async function leaf(cn: string, ca: { cert: string; private: string }, role: 'server' | 'client') {
  return generate([{ name: 'commonName', value: cn }], {
    ...ec,
    ca: { cert: ca.cert, key: ca.private },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      role === 'server' ? { name: 'extKeyUsage', serverAuth: true } : { name: 'extKeyUsage', clientAuth: true },
      {
        name: 'subjectAltName',
        altNames: [{ type: 2, value: cn }],
      },
    ],
  });
}

export async function makeTemporalTlsFiles(): Promise<TemporalTlsFiles> {
  const dir = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
  const ca = await authority('test temporal ca');
  const other = await authority('some other ca');
  const server = await leaf(SERVER_NAME, ca, 'server');
  const client = await leaf('talent-platform-worker', ca, 'client');
  const stranger = await leaf('stranger', other, 'client');
  const files = {
    caCert: ca.cert,
    serverCert: server.cert,
    serverKey: server.private,
    clientCert: client.cert,
    clientKey: client.private,
    strangerCert: stranger.cert,
    strangerKey: stranger.private,
  };
  const paths = Object.fromEntries(
    Object.entries(files).map(([name, pem]) => {
      const path = join(dir, `${name}.pem`);
      writeFileSync(path, pem, { mode: 0o600 });
      return [name, path];
    }),
  ) as Omit<TemporalTlsFiles, 'dir'>;
  return { dir, ...paths };
}
