import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * The one config module. Every setting the processes read is declared here, validated at
 * start-up, and documented in the README's configuration table with the same default.
 */

const csvNumbers = (count: number) =>
  z
    .string()
    .transform((s, ctx) => {
      const parts = s.split(',').map((p) => p.trim());
      const nums = parts.map(Number);
      if (parts.length !== count || nums.some((n) => !Number.isInteger(n) || n < 0)) {
        ctx.addIssue({ code: 'custom', message: `expected ${count} comma-separated non-negative integers` });
        return z.NEVER;
      }
      return nums;
    });

const csvList = z
  .string()
  .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean));

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const url = z.string().url().transform((u) => u.replace(/\/+$/, ''));

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: port.default(8080),
    BASE_URL: url.optional(),
    AUTH_URL: url.optional(),
    MCP_URL: url.optional(),
    MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI').default('mongodb://127.0.0.1:27017/talent'),
    TEMPORAL_ADDRESS: z.string().regex(/^[^:\s]+:\d+$/, 'must be host:port').default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('talent-platform'),
    SECRETS_ENCRYPTION_KEY: z
      .string({ message: 'is required: 32 random bytes, base64 (generate with: openssl rand -base64 32)' })
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded as base64'),
    API_AUDIENCE: z.string().min(1).default('developer-api'),
    WEBHOOK_ALLOWED_CIDRS: csvList.default([]),
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
    ACCESS_TOKEN_TTL_SECONDS: positiveInt.default(900),
    REFRESH_TOKEN_IDLE_SECONDS: positiveInt.default(30 * 24 * 3600),
    M2M_SECRET_ROTATION_GRACE_SECONDS: z.coerce.number().int().min(0).default(24 * 3600),
    PASSWORD_SCRYPT_LOG2_N: z.coerce.number().int().min(10).max(20).default(15),
    SEARCH_PREVIEW_QUOTA_PER_DAY: positiveInt.default(5000),
    SEARCH_DISTINCT_QUERIES_PER_HOUR: positiveInt.default(300),
    SEARCH_DELIVERY_QUOTA_PER_DAY: positiveInt.default(2000),
    SEARCH_CURSOR_TTL_SECONDS: positiveInt.default(3600),
    IDEMPOTENCY_LEASE_SECONDS: positiveInt.default(30),
    METRICS_ENABLED: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
    LIMITS_LEASE_TTL_SECONDS: positiveInt.default(60),
    READ_CACHE_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
    WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: z.coerce.number().int().min(2).max(1000).default(100),
    WORKER_MAX_CONCURRENT_ACTIVITIES: positiveInt.max(1000).default(200),
    WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES: positiveInt.max(1000).default(200),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV === 'production' && c.RETRY_DELAYS_MS) {
      ctx.addIssue({ code: 'custom', path: ['RETRY_DELAYS_MS'], message: 'must not be set when NODE_ENV=production' });
    }
    for (const cidr of c.WEBHOOK_ALLOWED_CIDRS) {
      try {
        ipaddr.parseCIDR(cidr);
      } catch {
        ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOWED_CIDRS'], message: `"${cidr}" is not a CIDR range (e.g. 127.0.0.0/8)` });
      }
    }
    if (c.NODE_ENV === 'production' && (c.WEBHOOK_ALLOWED_CIDRS.length > 0 || c.WEBHOOK_EXTRA_CA_FILE)) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_ALLOWED_CIDRS'], message: 'destination relaxations must not be set when NODE_ENV=production' });
    }
    if (c.NODE_ENV === 'production' && c.PASSWORD_SCRYPT_LOG2_N < 15) {
      ctx.addIssue({ code: 'custom', path: ['PASSWORD_SCRYPT_LOG2_N'], message: 'must be at least 15 when NODE_ENV=production' });
    }
    if (c.CONTACT_PROVIDER === 'http' && !c.CONTACT_PROVIDER_URL) {
      ctx.addIssue({ code: 'custom', path: ['CONTACT_PROVIDER_URL'], message: 'is required when CONTACT_PROVIDER=http' });
    }
  });

/** Every environment variable the processes read (the README's configuration table). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

export type Config = ReturnType<typeof toConfig>;

function toConfig(e: z.infer<typeof schema>) {
  const baseUrl = e.BASE_URL ?? `http://${e.HOST}:${e.PORT}`;
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    host: e.HOST,
    port: e.PORT,
    baseUrl,
    authUrl: e.AUTH_URL ?? baseUrl,
    mcpUrl: e.MCP_URL ?? baseUrl,
    mongodbUri: e.MONGODB_URI,
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.TEMPORAL_TASK_QUEUE },
    secretsKey: Buffer.from(e.SECRETS_ENCRYPTION_KEY, 'base64'),
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
    contactJobs: { chunkSize: e.CONTACT_JOB_CHUNK_SIZE, concurrency: e.CONTACT_JOB_CONCURRENCY },
    oauth: {
      accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenIdleSeconds: e.REFRESH_TOKEN_IDLE_SECONDS,
      secretRotationGraceSeconds: e.M2M_SECRET_ROTATION_GRACE_SECONDS,
      passwordScryptLog2N: e.PASSWORD_SCRYPT_LOG2_N,
    },
    searchQuotas: {
      previewsPerDay: e.SEARCH_PREVIEW_QUOTA_PER_DAY,
      distinctQueriesPerHour: e.SEARCH_DISTINCT_QUERIES_PER_HOUR,
      deliveriesPerDay: e.SEARCH_DELIVERY_QUOTA_PER_DAY,
    },
    search: { cursorTtlSeconds: e.SEARCH_CURSOR_TTL_SECONDS },
    idempotency: { leaseSeconds: e.IDEMPOTENCY_LEASE_SECONDS },
    metricsEnabled: e.METRICS_ENABLED,
    limits: { leaseTtlSeconds: e.LIMITS_LEASE_TTL_SECONDS },
    readCacheMs: e.READ_CACHE_MS,
    worker: {
      maxConcurrentWorkflowTasks: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
      maxConcurrentActivities: e.WORKER_MAX_CONCURRENT_ACTIVITIES,
      maxConcurrentLocalActivities: e.WORKER_MAX_CONCURRENT_LOCAL_ACTIVITIES,
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

let cached: Config | undefined;

/** The process-wide config, loaded on first use. Entry points call this at start-up. */
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}

/** For tests and embedders that build the config themselves. */
export function setConfig(c: Config): void {
  cached = c;
}

/** Entry points: load or exit non-zero with every bad variable named. */
export function loadConfigOrExit(): Config {
  try {
    return config();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
}
