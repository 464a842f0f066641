import { generate } from 'selfsigned';

/**
 * A self-signed certificate that is its own CA, for HTTPS servers on this machine (local
 * webhooks in development, the tests' webhook receiver): valid for 127.0.0.1, ::1, `localhost`
 * and any extra host names, from a day before `now` (clocks of a test server may lag) for
 * `validDays`.
 */
export async function loopbackCertificate(opts: { hostNames?: string[]; now?: Date; validDays: number }): Promise<{ cert: string; key: string }> {
  const now = opts.now ?? new Date();
  const names = [...(opts.hostNames ?? []), 'localhost'];
  const pems = await generate([{ name: 'commonName', value: names[0] }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 24 * 3600_000),
    notAfterDate: new Date(now.getTime() + opts.validDays * 24 * 3600_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [...names.map((value) => ({ type: 2 as const, value })), { type: 7 as const, ip: '127.0.0.1' }, { type: 7 as const, ip: '::1' }],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
