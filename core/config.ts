import { createPrivateKey, X509Certificate } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { LOOPBACK_ORIGINS, parseOriginRule } from './allowedOrigins';
import { Concealed } from './concealed';

/**
 * The one config module. Every setting the processes read is declared here, validated at
 * start-up, and documented in docs/configuration.md with the same default.
 */

const csvNumbers = (count: number) =>
  z.string().transform((s, ctx) => {
    const parts = s.split(',').map((p) => p.trim());
    const nums = parts.map(Number);
    if (parts.length !== count || nums.some((n) => !Number.isInteger(n) || n < 0)) {
      ctx.addIssue({ code: 'custom', message: `expected ${count} comma-separated non-negative integers` });
      return z.NEVER;
    }
    return nums;
  });

const csvList = z.string().transform((s) =>
  s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean),
);

/** Exported for callers of store maintenance that run without a loaded config (tests, scripts). */
export const AUDIT_RETENTION_DAYS_DEFAULT = 400;

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

/**
 * How long each wait on the store may last. Exported for the scripts that connect without a
 * full config (they take the same defaults).
 */
export const STORE_WAIT_DEFAULTS = { serverSelectionTimeoutMs: 1500, connectTimeoutMs: 5000, socketTimeoutMs: 60_000, startupWaitMs: 10_000 } as const;

const url = z
  .string()
  .url()
  .transform((u) => u.replace(/\/+$/, ''));

/** A file read later (by a library): it must be readable at start-up; its path is kept. */
const readableFile = z
  .string()
  .min(1)
  .superRefine((path, ctx) => {
    try {
      accessSync(path, constants.R_OK);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})` });
    }
  });

/**
 * A PEM file read at start-up: a missing, unreadable or malformed file fails the start with the
 * setting's name and the path (never the file's content).
 */
const pemFile = (kind: 'certificate' | 'private key') =>
  z
    .string()
    .min(1)
    .transform((path, ctx) => {
      let pem: Buffer;
      try {
        pem = readFileSync(path);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})` });
        return z.NEVER;
      }
      try {
        if (kind === 'certificate') new X509Certificate(pem);
        else createPrivateKey(pem);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${path} holds no PEM ${kind}` });
        return z.NEVER;
      }
      return { path, pem };
    });
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

const masterKey = (message: string) => z.string({ message }).refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64');

/** Settings that weaken a production guarantee; accepted only when NODE_ENV says development or test. */
const RELAXATIONS = ['RETRY_DELAYS_MS', 'WEBHOOK_ALLOWED_CIDRS', 'WEBHOOK_EXTRA_CA_FILE', 'CHAOS_EXIT_AT'] as const;

const schema = z
  .object({
    // No default here: the relaxations below need it set explicitly, an unset NODE_ENV counts as production for them.
    NODE_ENV: z.enum(['development', 'test', 'production']).optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: port.default(8080),
    BASE_URL: url.optional(),
    AUTH_URL: url.optional(),
    MCP_URL: url.optional(),
    MONGODB_URI: z
      .string()
      .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI')
      .default('mongodb://127.0.0.1:27017/talent'),
    TEMPORAL_ADDRESS: z
      .string()
      .regex(/^[^:\s]+:\d+$/, 'must be host:port')
      .default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('talent-platform'),
    TEMPORAL_CONNECT_TIMEOUT_MS: positiveInt.max(120_000).default(5000),
    TEMPORAL_CALL_TIMEOUT_MS: positiveInt.max(300_000).default(10_000),
    TEMPORAL_START_WAIT_MS: positiveInt.max(10_000).default(400),
    /** TLS towards Temporal; on by default as soon as any TLS setting or an API key is given. */
    TEMPORAL_TLS: flag.optional(),
    TEMPORAL_TLS_CERT_FILE: pemFile('certificate').optional(),
    TEMPORAL_TLS_KEY_FILE: pemFile('private key').optional(),
    TEMPORAL_TLS_CA_FILE: pemFile('certificate').optional(),
    TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    WORKFLOW_STARTER_INTERVAL_MS: positiveInt.max(60_000).default(1000),
    WORKFLOW_STARTER_LEASE_MS: positiveInt.max(600_000).default(15_000),
    CHAOS_EXIT_AT: z.enum(['after_charge']).optional(),
    WORKER_SHUTDOWN_FORCE_MS: positiveInt.max(3_600_000).default(60_000),
    STORE_SERVER_SELECTION_TIMEOUT_MS: positiveInt.max(120_000).default(STORE_WAIT_DEFAULTS.serverSelectionTimeoutMs),
    STORE_CONNECT_TIMEOUT_MS: positiveInt.max(120_000).default(STORE_WAIT_DEFAULTS.connectTimeoutMs),
    STORE_SOCKET_TIMEOUT_MS: positiveInt.max(3_600_000).default(STORE_WAIT_DEFAULTS.socketTimeoutMs),
    STORE_STARTUP_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(STORE_WAIT_DEFAULTS.startupWaitMs),
    SECRETS_ENCRYPTION_KEY: masterKey('is required: 32 random bytes, base64 (generate with: openssl rand -base64 32)'),
    SECRETS_ENCRYPTION_KEY_PREVIOUS: masterKey('must be 32 bytes encoded as base64').optional(),
    API_AUDIENCE: z.string().min(1).default('developer-api'),
    WEBHOOK_ALLOWED_CIDRS: csvList.default([]),
    MCP_ALLOWED_ORIGINS: csvList.optional(),
    WEBHOOK_EXTRA_CA_FILE: z.string().min(1).optional(),
    RETRY_DELAYS_MS: csvNumbers(8).optional(),
    CONTACT_PROVIDER: z.enum(['local', 'http']).default('local'),
    CONTACT_PROVIDER_URL: url.optional(),
    CONTACT_PROVIDER_TOKEN: z.string().min(1).optional(),
    CONTACT_PROVIDER_TIMEOUT_MS: positiveInt.default(10_000),
    CONTACT_PROVIDER_MAX_ATTEMPTS: positiveInt.default(4),
    CONTACT_PROVIDER_RETRY_BASE_MS: positiveInt.default(250),
    CONTACT_JOB_CHUNK_SIZE: positiveInt.max(1000).default(500),
    CONTACT_JOB_CONCURRENCY: positiveInt.max(50).default(4),
    CONTACT_JOBS_PER_DAY: positiveInt.default(1000),
    CONTACT_JOB_HEARTBEAT_TIMEOUT_MS: positiveInt.max(600_000).optional(),
    CONTACT_JOB_WORKFLOW_TASK_TIMEOUT_MS: positiveInt.max(120_000).default(10_000),
    ACCESS_TOKEN_TTL_SECONDS: positiveInt.default(900),
    REFRESH_TOKEN_IDLE_SECONDS: positiveInt.default(30 * 24 * 3600),
    M2M_SECRET_ROTATION_GRACE_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .default(24 * 3600),
    PASSWORD_SCRYPT_LOG2_N: z.coerce.number().int().min(10).max(20).default(15),
    SEARCH_PREVIEW_QUOTA_PER_DAY: positiveInt.default(5000),
    SEARCH_DISTINCT_QUERIES_PER_HOUR: positiveInt.default(300),
    SEARCH_DELIVERY_QUOTA_PER_DAY: positiveInt.default(2000),
    SEARCH_CURSOR_TTL_SECONDS: positiveInt.default(3600),
    SEARCH_SCAN_BUDGET: positiveInt.default(250_000),
    IDEMPOTENCY_LEASE_SECONDS: positiveInt.default(30),
    METRICS_ENABLED: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional(),
    METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters (generate with: openssl rand -hex 32)').optional(),
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    ADDRESS_AUTH_FAILURES_PER_MINUTE: positiveInt.default(30),
    ADDRESS_TOKEN_REQUESTS_PER_MINUTE: positiveInt.default(120),
    ADDRESS_JWKS_REQUESTS_PER_MINUTE: positiveInt.default(60),
    ADDRESS_AUTHORIZE_REQUESTS_PER_MINUTE: positiveInt.default(60),
    ADDRESS_METADATA_DOCUMENT_FETCHES_PER_MINUTE: positiveInt.default(30),
    ADDRESS_PASSKEY_OPTIONS_PER_MINUTE: positiveInt.default(30),
    METADATA_DOCUMENT_FETCHES_IN_FLIGHT: positiveInt.default(20),
    METADATA_DOCUMENT_FAILURE_CACHE_SECONDS: positiveInt.default(60),
    PERSON_TOOL_REQUESTS_PER_SECOND: positiveInt.default(10),
    LIMITS_LEASE_TTL_SECONDS: positiveInt.default(60),
    READ_CACHE_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
    /** The API process compiles its request path before listening (api/warmStart.ts); false listens at once. */
    API_WARM_START: flag.default(true),
    /** Days an audit entry is kept; store maintenance deletes older ones, and nothing else ever does. */
    AUDIT_RETENTION_DAYS: positiveInt.max(36_500).default(AUDIT_RETENTION_DAYS_DEFAULT),
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(1000).default(300),
    WORKER_MAX_CONCURRENT_ACTIVITIES: positiveInt.max(1000).default(200),
    WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: positiveInt.max(1000).default(300),
    /** The worker's Prometheus endpoint (GET /metrics on HOST); 0 serves none. */
    WORKER_METRICS_PORT: port.default(0),
    WORKER_STICKY_QUEUE_TIMEOUT_MS: positiveInt.max(600_000).default(10_000),
    WORKER_WORKFLOW_BUNDLE: readableFile.optional(),
    /** `smtp://user:pass@host:587` or `smtps://…`; unset, mail waits in the outbox (and each process says so at start). */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/[^\s/]+(:\d+)?\/?(\?\S*)?$/, 'must be an smtp:// or smtps:// URL (smtp://user:pass@host:587)')
      .optional(),
    MAIL_FROM: z.string().min(3).max(320).optional(),
    MAIL_SENDER_INTERVAL_MS: positiveInt.max(60_000).default(1000),
    MAIL_RETRY_MAX_DELAY_MS: positiveInt.max(3_600_000).default(300_000),
  })
  .superRefine((c, ctx) => {
    if (!relaxed(c.NODE_ENV)) {
      for (const name of RELAXATIONS) {
        const value = c[name];
        if (value !== undefined && !(Array.isArray(value) && value.length === 0)) {
          ctx.addIssue({ code: 'custom', path: [name], message: 'is a test/local relaxation: set NODE_ENV=development or NODE_ENV=test explicitly to use it' });
        }
      }
    }
    for (const origin of c.MCP_ALLOWED_ORIGINS ?? []) {
      if (!parseOriginRule(origin))
        ctx.addIssue({
          code: 'custom',
          path: ['MCP_ALLOWED_ORIGINS'],
          message: `"${origin}" is not an origin (scheme://host, scheme://host:port or scheme://host:*)`,
        });
    }
    for (const cidr of c.WEBHOOK_ALLOWED_CIDRS) {
      try {
        ipaddr.parseCIDR(cidr);
      } catch {
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOWED_CIDRS'], message: `"${cidr}" is not a CIDR range (e.g. 127.0.0.0/8)` });
      }
    }
    if (c.METRICS_ENABLED === true && !c.METRICS_TOKEN && !relaxed(c.NODE_ENV)) {
      ctx.addIssue({
        code: 'custom',
        path: ['METRICS_ENABLED'],
        message: 'metrics show business counters: set METRICS_TOKEN, or METRICS_ENABLED=false (only NODE_ENV=development or test serve them without a token)',
      });
    }
    if (c.WORKER_METRICS_PORT > 0 && !c.METRICS_TOKEN && !relaxed(c.NODE_ENV)) {
      ctx.addIssue({
        code: 'custom',
        path: ['WORKER_METRICS_PORT'],
        message: "the worker's metrics show business counters: set METRICS_TOKEN too (only NODE_ENV=development or test serve them without a token)",
      });
    }
    temporalTlsIssues(c).forEach(([path, message]) => ctx.addIssue({ code: 'custom', path: [path], message }));
    if (c.SECRETS_ENCRYPTION_KEY_PREVIOUS && Buffer.from(c.SECRETS_ENCRYPTION_KEY_PREVIOUS, 'base64').equals(Buffer.from(c.SECRETS_ENCRYPTION_KEY, 'base64'))) {
      ctx.addIssue({ code: 'custom', path: ['SECRETS_ENCRYPTION_KEY_PREVIOUS'], message: 'must differ from SECRETS_ENCRYPTION_KEY' });
    }
    if (c.NODE_ENV === 'production' && c.PASSWORD_SCRYPT_LOG2_N < 15) {
      ctx.addIssue({ code: 'custom', path: ['PASSWORD_SCRYPT_LOG2_N'], message: 'must be at least 15 when NODE_ENV=production' });
    }
    if (c.CONTACT_JOB_HEARTBEAT_TIMEOUT_MS !== undefined && c.CONTACT_JOB_HEARTBEAT_TIMEOUT_MS <= c.CONTACT_PROVIDER_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['CONTACT_JOB_HEARTBEAT_TIMEOUT_MS'],
        message: 'must be longer than CONTACT_PROVIDER_TIMEOUT_MS (a chunk reports progress between provider calls)',
      });
    }
    if (c.MAIL_FROM !== undefined && !mailboxOf(c.MAIL_FROM)) {
      ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: 'must be an address, alone or as `Name <address>`' });
    }
    if (c.CONTACT_PROVIDER === 'http' && !c.CONTACT_PROVIDER_URL) {
      ctx.addIssue({ code: 'custom', path: ['CONTACT_PROVIDER_URL'], message: 'is required when CONTACT_PROVIDER=http' });
    }
  });

type TemporalTlsSettings = Pick<
  z.infer<typeof schema>,
  'NODE_ENV' | 'TEMPORAL_TLS' | 'TEMPORAL_TLS_CERT_FILE' | 'TEMPORAL_TLS_KEY_FILE' | 'TEMPORAL_TLS_CA_FILE' | 'TEMPORAL_TLS_SERVER_NAME' | 'TEMPORAL_API_KEY'
>;

/** TLS towards Temporal: a client certificate (mTLS), a CA to trust instead of the system's, the name to check. */
export interface TemporalTls {
  clientCert?: { crt: Buffer; key: Concealed<Buffer> };
  serverCa?: Buffer;
  serverName?: string;
}

function temporalTlsIssues(c: TemporalTlsSettings): [string, string][] {
  const cert = c.TEMPORAL_TLS_CERT_FILE;
  const key = c.TEMPORAL_TLS_KEY_FILE;
  if (cert && !key) return [['TEMPORAL_TLS_KEY_FILE', 'is required with TEMPORAL_TLS_CERT_FILE (the client certificate needs its private key)']];
  if (key && !cert) return [['TEMPORAL_TLS_CERT_FILE', 'is required with TEMPORAL_TLS_KEY_FILE (the private key needs its client certificate)']];
  if (cert && key && !new X509Certificate(cert.pem).checkPrivateKey(createPrivateKey(key.pem))) {
    return [['TEMPORAL_TLS_KEY_FILE', `${key.path} is not the private key of the certificate in ${cert.path}`]];
  }
  if (c.TEMPORAL_TLS === false) {
    const tlsOnly = (['TEMPORAL_TLS_CERT_FILE', 'TEMPORAL_TLS_CA_FILE', 'TEMPORAL_TLS_SERVER_NAME'] as const).filter((name) => c[name] !== undefined);
    if (tlsOnly.length) return [['TEMPORAL_TLS', `is false but ${tlsOnly.join(', ')} ${tlsOnly.length > 1 ? 'are' : 'is'} set: unset them or TEMPORAL_TLS`]];
    if (c.TEMPORAL_API_KEY && !relaxed(c.NODE_ENV)) {
      return [['TEMPORAL_TLS', 'is false with TEMPORAL_API_KEY set, which would send the key in clear (only NODE_ENV=development or test allow it)']];
    }
  }
  return [];
}

function temporalTls(e: TemporalTlsSettings): TemporalTls | null {
  const on = e.TEMPORAL_TLS ?? Boolean(e.TEMPORAL_TLS_CERT_FILE || e.TEMPORAL_TLS_CA_FILE || e.TEMPORAL_TLS_SERVER_NAME || e.TEMPORAL_API_KEY);
  if (!on) return null;
  const cert = e.TEMPORAL_TLS_CERT_FILE;
  const key = e.TEMPORAL_TLS_KEY_FILE;
  return {
    ...(cert && key ? { clientCert: { crt: cert.pem, key: new Concealed(key.pem) } } : {}),
    ...(e.TEMPORAL_TLS_CA_FILE ? { serverCa: e.TEMPORAL_TLS_CA_FILE.pem } : {}),
    ...(e.TEMPORAL_TLS_SERVER_NAME ? { serverName: e.TEMPORAL_TLS_SERVER_NAME } : {}),
  };
}

/** The address of a `MAIL_FROM` value (`a@b` or `Name <a@b>`), or null. */
function mailboxOf(value: string): string | null {
  const bare = /^<?([^\s<>@]+@[^\s<>@]+)>?$/.exec(value.trim()) ?? /^[^<>]*<([^\s<>@]+@[^\s<>@]+)>$/.exec(value.trim());
  return bare ? bare[1] : null;
}

function relaxed(nodeEnv: string | undefined): boolean {
  return nodeEnv === 'development' || nodeEnv === 'test';
}

/** Every environment variable the processes read (docs/configuration.md). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

export type Config = ReturnType<typeof toConfig>;

function toConfig(e: z.infer<typeof schema>) {
  const baseUrl = e.BASE_URL ?? `http://${e.HOST}:${e.PORT}`;
  const secretsKey = Buffer.from(e.SECRETS_ENCRYPTION_KEY, 'base64');
  return {
    env: e.NODE_ENV ?? 'development',
    logLevel: e.LOG_LEVEL,
    host: e.HOST,
    port: e.PORT,
    baseUrl,
    authUrl: e.AUTH_URL ?? baseUrl,
    mcpUrl: e.MCP_URL ?? baseUrl,
    /** Browser origins allowed on /tools and the OAuth endpoints; development allows the loopback ones by default. */
    allowedOrigins: e.MCP_ALLOWED_ORIGINS ?? (e.NODE_ENV === 'development' ? [...LOOPBACK_ORIGINS] : []),
    mongodbUri: e.MONGODB_URI,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      /** Every wait on Temporal has a limit: connecting, each call, and a request's own attempt to start a workflow. */
      connectTimeoutMs: e.TEMPORAL_CONNECT_TIMEOUT_MS,
      callTimeoutMs: e.TEMPORAL_CALL_TIMEOUT_MS,
      startWaitMs: e.TEMPORAL_START_WAIT_MS,
      /** How the connections authenticate (core/temporal/connectionOptions.ts builds both from these). */
      tls: temporalTls(e),
      apiKey: e.TEMPORAL_API_KEY ? new Concealed(e.TEMPORAL_API_KEY) : null,
    },
    /** The starter that carries out workflow starts and signals recorded in the store (core/temporal/workflowOutbox.ts). */
    workflowStarter: { intervalMs: e.WORKFLOW_STARTER_INTERVAL_MS, leaseMs: e.WORKFLOW_STARTER_LEASE_MS },
    store: {
      serverSelectionTimeoutMs: e.STORE_SERVER_SELECTION_TIMEOUT_MS,
      connectTimeoutMs: e.STORE_CONNECT_TIMEOUT_MS,
      socketTimeoutMs: e.STORE_SOCKET_TIMEOUT_MS,
      startupWaitMs: e.STORE_STARTUP_WAIT_MS,
    },
    /** The master secret; seal and open with core/crypto/secretBox. */
    secretsKey,
    /** SECRETS_ENCRYPTION_KEY_PREVIOUS during a rotation: openSecret opens values sealed under it too. */
    secretsKeyPrevious: e.SECRETS_ENCRYPTION_KEY_PREVIOUS ? Buffer.from(e.SECRETS_ENCRYPTION_KEY_PREVIOUS, 'base64') : null,
    apiAudience: e.API_AUDIENCE,
    webhooks: {
      allowedCidrs: e.WEBHOOK_ALLOWED_CIDRS,
      extraCaFile: e.WEBHOOK_EXTRA_CA_FILE,
      retryDelaysMs: e.RETRY_DELAYS_MS,
    },
    contactProvider: {
      kind: e.CONTACT_PROVIDER,
      url: e.CONTACT_PROVIDER_URL,
      token: e.CONTACT_PROVIDER_TOKEN,
      timeoutMs: e.CONTACT_PROVIDER_TIMEOUT_MS,
      maxAttempts: e.CONTACT_PROVIDER_MAX_ATTEMPTS,
      retryBaseMs: e.CONTACT_PROVIDER_RETRY_BASE_MS,
    },
    contactJobs: {
      chunkSize: e.CONTACT_JOB_CHUNK_SIZE,
      concurrency: e.CONTACT_JOB_CONCURRENCY,
      jobsPerDay: e.CONTACT_JOBS_PER_DAY,
      /** How long a chunk may go without reporting progress before Temporal gives it to another worker (its worker died). */
      heartbeatTimeoutMs: e.CONTACT_JOB_HEARTBEAT_TIMEOUT_MS ?? Math.max(10_000, 2 * e.CONTACT_PROVIDER_TIMEOUT_MS),
      /** How long a job workflow's task may take at a worker before Temporal gives it to another (the worker died mid-task). */
      workflowTaskTimeoutMs: e.CONTACT_JOB_WORKFLOW_TASK_TIMEOUT_MS,
    },
    oauth: {
      accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenIdleSeconds: e.REFRESH_TOKEN_IDLE_SECONDS,
      secretRotationGraceSeconds: e.M2M_SECRET_ROTATION_GRACE_SECONDS,
      passwordScryptLog2N: e.PASSWORD_SCRYPT_LOG2_N,
      /** Tool-server requests per second of one person's tokens together, whatever the method. */
      personToolRequestsPerSecond: e.PERSON_TOOL_REQUESTS_PER_SECOND,
    },
    searchQuotas: {
      previewsPerDay: e.SEARCH_PREVIEW_QUOTA_PER_DAY,
      distinctQueriesPerHour: e.SEARCH_DISTINCT_QUERIES_PER_HOUR,
      deliveriesPerDay: e.SEARCH_DELIVERY_QUOTA_PER_DAY,
    },
    search: { cursorTtlSeconds: e.SEARCH_CURSOR_TTL_SECONDS, scanBudget: e.SEARCH_SCAN_BUDGET },
    idempotency: { leaseSeconds: e.IDEMPOTENCY_LEASE_SECONDS },
    // Without a token, metrics are public, so they are on by default only where that is harmless.
    metricsEnabled: e.METRICS_ENABLED ?? (e.METRICS_TOKEN !== undefined || relaxed(e.NODE_ENV)),
    metricsToken: e.METRICS_TOKEN,
    trustedProxyHops: e.TRUSTED_PROXY_HOPS,
    addressLimits: {
      authFailuresPerMinute: e.ADDRESS_AUTH_FAILURES_PER_MINUTE,
      tokenRequestsPerMinute: e.ADDRESS_TOKEN_REQUESTS_PER_MINUTE,
      jwksRequestsPerMinute: e.ADDRESS_JWKS_REQUESTS_PER_MINUTE,
      /** Authorization requests that would store a pending authorization. */
      authorizeRequestsPerMinute: e.ADDRESS_AUTHORIZE_REQUESTS_PER_MINUTE,
      /** Client ID Metadata Document fetches an address's requests may cause (cache hits cost none). */
      metadataDocumentFetchesPerMinute: e.ADDRESS_METADATA_DOCUMENT_FETCHES_PER_MINUTE,
      /** Passkey sign-in options (each stores a challenge) asked for before anyone is signed in. */
      passkeyOptionsPerMinute: e.ADDRESS_PASSKEY_OPTIONS_PER_MINUTE,
    },
    metadataDocuments: {
      /** Fetches running at once in one process; one more is refused at once. */
      fetchesInFlight: e.METADATA_DOCUMENT_FETCHES_IN_FLIGHT,
      /** How long a URL whose fetch failed is not fetched again. */
      failureCacheSeconds: e.METADATA_DOCUMENT_FAILURE_CACHE_SECONDS,
    },
    limits: { leaseTtlSeconds: e.LIMITS_LEASE_TTL_SECONDS },
    readCacheMs: e.READ_CACHE_MS,
    apiWarmStart: e.API_WARM_START,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    mail: {
      /** Where mail is handed over; null: mail waits in the outbox (development without Mailpit, tests that send none). */
      smtpUrl: e.SMTP_URL ? new Concealed(e.SMTP_URL) : null,
      from: e.MAIL_FROM ?? `Talent platform <no-reply@${new URL(e.AUTH_URL ?? baseUrl).hostname}>`,
      senderIntervalMs: e.MAIL_SENDER_INTERVAL_MS,
      /** The longest wait between two attempts at one mail while the mail server does not take it. */
      retryMaxDelayMs: e.MAIL_RETRY_MAX_DELAY_MS,
    },
    /** The chaos run's exit point (core/faultInjection.ts); refused in production. */
    chaosExitAt: e.CHAOS_EXIT_AT ?? null,
    worker: {
      shutdownForceMs: e.WORKER_SHUTDOWN_FORCE_MS,
      maxConcurrentWorkflowTasks: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentActivities: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentLocalActivities: e.WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES,
      metricsPort: e.WORKER_METRICS_PORT,
      /** How long a workflow's next task waits for the worker that holds the workflow in memory before any worker takes it. */
      stickyQueueTimeoutMs: e.WORKER_STICKY_QUEUE_TIMEOUT_MS,
      /** A workflow bundle built beforehand (`bundleWorkflowCode`), run instead of bundling `workflows/` at start-up. */
      workflowBundlePath: e.WORKER_WORKFLOW_BUNDLE ?? null,
    },
  };
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  ${issues.join('\n  ')}`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", the way shells and compose files tend to pass them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`));
  }
  return toConfig(parsed.data);
}

/**
 * The logger's settings. The logger exists before any entry point loads the config (and must
 * work when that fails), so these two are read on their own, with LOG_LEVEL's rule from the
 * schema; a bad LOG_LEVEL logs at `info` until loadConfig refuses it.
 */
export function logSettings(env: NodeJS.ProcessEnv = process.env): { level: string; service: string } {
  const level = schema.shape.LOG_LEVEL.safeParse(env.LOG_LEVEL || undefined);
  return { level: level.success ? level.data : 'info', service: env.SERVICE_NAME || 'talent-platform' };
}

/**
 * Entry points: load or exit non-zero with every bad variable named. There is no process-wide
 * config: the entry point (composition root) passes what it loaded to what it builds.
 */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
