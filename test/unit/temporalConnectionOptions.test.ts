import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../../core/config';
import { createTemporalClients } from '../../core/temporal/client';
import { clientConnectOptions, describeTemporalConnection, temporalConnectOptions } from '../../core/temporal/connectionOptions';
import { freePort } from '../../scripts/localServices';
import { makeTemporalTlsFiles, type TemporalTlsFiles } from '../support/temporalTlsCertificates';

/**
 * The Temporal connection as the config describes it: TLS files read and checked at start-up,
 * the same options for the client and the worker, and an API key that nothing prints.
 */
const API_KEY = 'tcld_secret_9f3a7c1e5b2d4f6a8c0e';

let files: TemporalTlsFiles;
beforeAll(async () => {
  files = await makeTemporalTlsFiles();
});

function load(env: Record<string, string>) {
  return loadConfig({ NODE_ENV: 'test', SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), ...env });
}

function configError(env: Record<string, string>): string {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('the config loaded');
}

test('without TLS settings the connection is plain gRPC and carries no key', () => {
  const t = load({}).temporal;
  expect(t.tls).toBeNull();
  expect(t.apiKey).toBeNull();
  expect(temporalConnectOptions(t)).toEqual({ address: '127.0.0.1:7233', tls: false });
  expect(describeTemporalConnection(t)).toEqual({ address: '127.0.0.1:7233', namespace: 'default', tls: 'off', apiKey: false });
});

test('mTLS settings give both connections the client certificate pair, the CA and the server name', () => {
  const t = load({
    TEMPORAL_ADDRESS: 'temporal.internal:7233',
    TEMPORAL_TLS_CERT_FILE: files.clientCert,
    TEMPORAL_TLS_KEY_FILE: files.clientKey,
    TEMPORAL_TLS_CA_FILE: files.caCert,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
    TEMPORAL_CONNECT_TIMEOUT_MS: '1234',
  }).temporal;
  const tls = {
    clientCertPair: { crt: readFileSync(files.clientCert), key: readFileSync(files.clientKey) },
    serverRootCACertificate: readFileSync(files.caCert),
    serverNameOverride: 'localhost',
  };
  expect(temporalConnectOptions(t)).toEqual({ address: 'temporal.internal:7233', tls });
  expect(clientConnectOptions(t)).toEqual({ address: 'temporal.internal:7233', tls, connectTimeout: 1234 });
  expect(describeTemporalConnection(t).tls).toBe('mutual');
  // The private key is in the options the SDK needs, never in a logged or serialised config.
  const key = readFileSync(files.clientKey, 'utf8');
  const body = key.split('\n')[1];
  expect(JSON.stringify(t)).not.toContain(body);
  expect(inspect(t, { depth: 10 })).not.toContain(body);
});

test('a CA or a server name alone turns TLS on (server authentication only)', () => {
  expect(temporalConnectOptions(load({ TEMPORAL_TLS_CA_FILE: files.caCert }).temporal).tls).toEqual({ serverRootCACertificate: readFileSync(files.caCert) });
  expect(temporalConnectOptions(load({ TEMPORAL_TLS: 'true' }).temporal).tls).toEqual({});
  expect(describeTemporalConnection(load({ TEMPORAL_TLS_SERVER_NAME: 'temporal.example' }).temporal).tls).toBe('server');
});

test('a certificate without its key, or a key without its certificate, fails the start naming the missing setting', () => {
  expect(configError({ TEMPORAL_TLS_CERT_FILE: files.clientCert })).toMatch(/TEMPORAL_TLS_KEY_FILE: is required with TEMPORAL_TLS_CERT_FILE/);
  expect(configError({ TEMPORAL_TLS_KEY_FILE: files.clientKey })).toMatch(/TEMPORAL_TLS_CERT_FILE: is required with TEMPORAL_TLS_KEY_FILE/);
});

test('a missing, unreadable or malformed file fails the start naming the setting and the path, not the content', () => {
  const missing = join(files.dir, 'nope.pem');
  expect(configError({ TEMPORAL_TLS_CA_FILE: missing })).toContain(`TEMPORAL_TLS_CA_FILE: cannot read ${missing} (ENOENT)`);
  expect(configError({ TEMPORAL_TLS_CA_FILE: files.dir })).toContain(`TEMPORAL_TLS_CA_FILE: cannot read ${files.dir} (EISDIR)`);
  const garbage = join(files.dir, 'garbage.pem');
  writeFileSync(garbage, 'not a certificate at all');
  expect(configError({ TEMPORAL_TLS_CERT_FILE: garbage, TEMPORAL_TLS_KEY_FILE: files.clientKey })).toContain(
    `TEMPORAL_TLS_CERT_FILE: ${garbage} holds no PEM certificate`,
  );
  // A certificate given as the key: the message names the file, never prints what is in it.
  const message = configError({ TEMPORAL_TLS_CERT_FILE: files.clientCert, TEMPORAL_TLS_KEY_FILE: files.caCert });
  expect(message).toContain(`TEMPORAL_TLS_KEY_FILE: ${files.caCert} holds no PEM private key`);
  expect(message).not.toContain('BEGIN');
});

test("a key that is not the certificate's fails the start", () => {
  expect(configError({ TEMPORAL_TLS_CERT_FILE: files.clientCert, TEMPORAL_TLS_KEY_FILE: files.strangerKey })).toContain(
    `TEMPORAL_TLS_KEY_FILE: ${files.strangerKey} is not the private key of the certificate in ${files.clientCert}`,
  );
});

test('TEMPORAL_TLS=false with TLS files set is refused, and with an API key only where sending it in clear is harmless', () => {
  expect(configError({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA_FILE: files.caCert })).toMatch(/TEMPORAL_TLS: is false but TEMPORAL_TLS_CA_FILE is set/);
  const message = configError({ NODE_ENV: 'production', TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: API_KEY });
  expect(message).toMatch(/TEMPORAL_TLS: is false with TEMPORAL_API_KEY set/);
  expect(message).not.toContain(API_KEY);
  expect(temporalConnectOptions(load({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: API_KEY }).temporal)).toEqual({
    address: '127.0.0.1:7233',
    tls: false,
    apiKey: API_KEY,
  });
});

test('a Temporal Cloud API key goes on the connection with TLS on, and into no log, serialisation or error', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const config = load({ TEMPORAL_ADDRESS: address, TEMPORAL_API_KEY: API_KEY, TEMPORAL_CONNECT_TIMEOUT_MS: '300', TEMPORAL_CALL_TIMEOUT_MS: '500' });
  expect(temporalConnectOptions(config.temporal)).toEqual({ address, tls: {}, apiKey: API_KEY });
  expect(describeTemporalConnection(config.temporal)).toEqual({ address, namespace: 'default', tls: 'server', apiKey: true });

  expect(JSON.stringify(config)).not.toContain(API_KEY);
  expect(inspect(config, { depth: 10 })).not.toContain(API_KEY);
  expect(`${config.temporal.apiKey}`).toBe('[redacted]');

  // Nobody listens: the failure names the address and what was waited for, and holds no key anywhere in its chain.
  const temporal = createTemporalClients(config);
  const err = await temporal.call('a health check', (client) => client.connection.workflowService.getSystemInfo({})).catch((e: unknown) => e);
  await temporal.close();
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).toContain(`Temporal at ${address} did not answer`);
  const chain: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) chain.push(e.message, e.stack ?? '', inspect(e, { depth: 5 }));
  expect(chain.join('\n')).not.toContain(API_KEY);
});
