import { createHash } from 'node:crypto';
import type { ConnectionOptions } from '@temporalio/client';
import type { Concealed } from '../concealed';

/** TLS towards Temporal: a client certificate (mTLS), a CA to trust instead of the system's, the name to check. */
export interface TemporalTls {
  clientCert?: { crt: Buffer; key: Concealed<Buffer> };
  serverCa?: Buffer;
  serverName?: string;
}

/** The config's Temporal slice that decides the connection (core/config.ts `temporal`). */
export interface TemporalConnectionSettings {
  address: string;
  namespace: string;
  connectTimeoutMs: number;
  /** null: plain gRPC (the local dev server). */
  tls: TemporalTls | null;
  /** Temporal Cloud's API key, sent as a bearer token on every call. */
  apiKey: Concealed<string> | null;
}

type TlsOption = Exclude<ConnectionOptions['tls'], boolean | null | undefined>;

/**
 * What both connections take: the API's and the scripts' `Connection.connect` and the worker's
 * `NativeConnection.connect`. TLS is either off (`false`) or a full TLS config, never left to the
 * SDK's defaults, so what the config says is what the connection does.
 */
export interface TemporalConnectOptions {
  address: string;
  tls: TlsOption | false;
  apiKey?: string;
}

export function temporalConnectOptions(t: Pick<TemporalConnectionSettings, 'address' | 'tls' | 'apiKey'>): TemporalConnectOptions {
  const tls: TlsOption | false = t.tls
    ? {
        ...(t.tls.clientCert ? { clientCertPair: { crt: t.tls.clientCert.crt, key: t.tls.clientCert.key.reveal() } } : {}),
        ...(t.tls.serverCa ? { serverRootCACertificate: t.tls.serverCa } : {}),
        ...(t.tls.serverName ? { serverNameOverride: t.tls.serverName } : {}),
      }
    : false;
  return { address: t.address, tls, ...(t.apiKey ? { apiKey: t.apiKey.reveal() } : {}) };
}

/** The options of a client connection (`Connection.connect`), bounded by TEMPORAL_CONNECT_TIMEOUT_MS. */
export function clientConnectOptions(t: Pick<TemporalConnectionSettings, 'address' | 'tls' | 'apiKey' | 'connectTimeoutMs'>): ConnectionOptions {
  return { ...temporalConnectOptions(t), connectTimeout: t.connectTimeoutMs };
}

const digest = (b: Buffer | string) => createHash('sha256').update(b).digest('hex').slice(0, 16);

/**
 * Which server and identity a connection is: two settings with the same identity may share a
 * client, two with different ones may not. Certificates, the CA and the API key enter as
 * digests, so the identity can be a map key without holding a secret in clear.
 */
export function temporalConnectionIdentity(t: TemporalConnectionSettings): string {
  return JSON.stringify([
    t.address,
    t.namespace,
    t.connectTimeoutMs,
    t.tls ? [t.tls.clientCert ? digest(t.tls.clientCert.crt) : null, t.tls.serverCa ? digest(t.tls.serverCa) : null, t.tls.serverName ?? null] : null,
    t.apiKey ? digest(t.apiKey.reveal()) : null,
  ]);
}

/** What a start-up line may say about the connection: where, and how it authenticates (no secret). */
export function describeTemporalConnection(t: TemporalConnectionSettings): {
  address: string;
  namespace: string;
  tls: 'off' | 'server' | 'mutual';
  apiKey: boolean;
} {
  return { address: t.address, namespace: t.namespace, tls: !t.tls ? 'off' : t.tls.clientCert ? 'mutual' : 'server', apiKey: t.apiKey !== null };
}
