import type { ConnectionOptions } from '@temporalio/client';
import type { Concealed } from '../concealed';
import type { TemporalTls } from '../config';

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

/** What a start-up line may say about the connection: where, and how it authenticates (no secret). */
export function describeTemporalConnection(t: TemporalConnectionSettings): {
  address: string;
  namespace: string;
  tls: 'off' | 'server' | 'mutual';
  apiKey: boolean;
} {
  return { address: t.address, namespace: t.namespace, tls: !t.tls ? 'off' : t.tls.clientCert ? 'mutual' : 'server', apiKey: t.apiKey !== null };
}
