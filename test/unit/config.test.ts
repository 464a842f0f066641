import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../core/config';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('config module', () => {
  test('defaults apply and URLs derive from BASE_URL', () => {
    const c = loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, BASE_URL: 'https://api.example.com/' });
    expect(c.port).toBe(8080);
    expect(c.baseUrl).toBe('https://api.example.com');
    expect(c.authUrl).toBe('https://api.example.com');
    expect(c.mcpUrl).toBe('https://api.example.com');
    expect(c.temporal).toEqual({
      address: '127.0.0.1:7233',
      namespace: 'default',
      taskQueue: 'talent-platform',
      connectTimeoutMs: 5000,
      callTimeoutMs: 10_000,
      startWaitMs: 400,
      tls: null,
      apiKey: null,
    });
    expect(c.webhooks.allowedCidrs).toEqual([]);
    expect(c.webhooks.retryDelaysMs).toBeUndefined();
  });

  test.each([
    ['PORT', 'eighty', /PORT/],
    ['MONGODB_URI', 'postgres://x', /MONGODB_URI/],
    ['TEMPORAL_ADDRESS', 'nohostport', /TEMPORAL_ADDRESS/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['RETRY_DELAYS_MS', '1,2,3', /RETRY_DELAYS_MS/],
    ['SECRETS_ENCRYPTION_KEY', 'c2hvcnQ=', /SECRETS_ENCRYPTION_KEY/],
  ])('a bad %s names the variable', (name, value, pattern) => {
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, [name]: value })).toThrow(pattern);
  });

  test('worker and job recovery settings: defaults, a prebuilt workflow bundle that must be readable, a heartbeat timeout longer than a provider call', () => {
    const c = loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, CONTACT_PROVIDER_TIMEOUT_MS: '8000' });
    expect(c.contactJobs).toMatchObject({ heartbeatTimeoutMs: 16_000, workflowTaskTimeoutMs: 10_000 });
    expect(c.worker).toMatchObject({ stickyQueueTimeoutMs: 10_000, workflowBundlePath: null });
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, CONTACT_PROVIDER_TIMEOUT_MS: '3000' }).contactJobs.heartbeatTimeoutMs).toBe(10_000);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, WORKER_WORKFLOW_BUNDLE: __filename }).worker.workflowBundlePath).toBe(__filename);
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, WORKER_WORKFLOW_BUNDLE: '/nonexistent/bundle.js' })).toThrow(
      /WORKER_WORKFLOW_BUNDLE: cannot read \/nonexistent\/bundle\.js \(ENOENT\)/,
    );
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, CONTACT_PROVIDER_TIMEOUT_MS: '2000', CONTACT_JOB_HEARTBEAT_TIMEOUT_MS: '2000' })).toThrow(
      /CONTACT_JOB_HEARTBEAT_TIMEOUT_MS: must be longer than CONTACT_PROVIDER_TIMEOUT_MS/,
    );
    expect(
      loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, CONTACT_PROVIDER_TIMEOUT_MS: '2000', CONTACT_JOB_HEARTBEAT_TIMEOUT_MS: '3000' }).contactJobs.heartbeatTimeoutMs,
    ).toBe(3000);
  });

  test('the API warms up before listening unless told not to; a value other than true or false is refused', () => {
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY }).apiWarmStart).toBe(true);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, API_WARM_START: 'false' }).apiWarmStart).toBe(false);
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, API_WARM_START: 'no' })).toThrow(/API_WARM_START/);
  });

  test('a missing encryption key is refused with a hint', () => {
    expect(() => loadConfig({})).toThrow(/SECRETS_ENCRYPTION_KEY.*openssl rand -base64 32/);
  });

  test('production refuses test-only relaxations', () => {
    const err = (() => {
      try {
        loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: 'production', RETRY_DELAYS_MS: '1,1,1,1,1,1,1,1', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
      } catch (e) {
        return e as ConfigError;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.issues.join('\n')).toMatch(/RETRY_DELAYS_MS/);
    expect(err!.issues.join('\n')).toMatch(/WEBHOOK_ALLOWED_CIDRS/);
  });

  test('test relaxations are accepted unless NODE_ENV=production is set explicitly (#17): they need development or test', () => {
    const relaxations = { RETRY_DELAYS_MS: '1,1,1,1,1,1,1,1', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: '/tmp/ca.pem' };
    for (const [name, value] of Object.entries(relaxations)) {
      // NODE_ENV unset: a deployment that forgot it gets production's guarantees.
      expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, [name]: value })).toThrow(new RegExp(`${name}.*NODE_ENV=development or NODE_ENV=test`));
      expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: 'production', [name]: value })).toThrow(ConfigError);
      for (const env of ['development', 'test']) expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: env, [name]: value })).not.toThrow();
    }
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY }).env).toBe('development');
  });

  test('`/metrics` is public and shows charge counters (#17): a token, or off outside development and test', () => {
    const token = 't'.repeat(32);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: 'development' }).metricsEnabled).toBe(true);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: 'production' }).metricsEnabled).toBe(false);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY }).metricsEnabled).toBe(false);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: 'production', METRICS_TOKEN: token })).toMatchObject({
      metricsEnabled: true,
      metricsToken: token,
    });
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: 'production', METRICS_ENABLED: 'true' })).toThrow(/METRICS_ENABLED.*METRICS_TOKEN/);
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, NODE_ENV: 'test', METRICS_ENABLED: 'false' }).metricsEnabled).toBe(false);
  });

  test('SECRETS_ENCRYPTION_KEY_PREVIOUS is a 32-byte key other than the current one', () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, SECRETS_ENCRYPTION_KEY_PREVIOUS: other })).not.toThrow();
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, SECRETS_ENCRYPTION_KEY_PREVIOUS: 'c2hvcnQ=' })).toThrow(/SECRETS_ENCRYPTION_KEY_PREVIOUS/);
    expect(() => loadConfig({ SECRETS_ENCRYPTION_KEY: KEY, SECRETS_ENCRYPTION_KEY_PREVIOUS: KEY })).toThrow(/SECRETS_ENCRYPTION_KEY_PREVIOUS.*differ/);
  });

  test('the API process exits non-zero naming the bad variable', () => {
    const root = join(__dirname, '..', '..');
    const r = spawnSync(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'api/server.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, SECRETS_ENCRYPTION_KEY: KEY, PORT: 'not-a-port' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/PORT/);
  });

  test('the list of variables covers what docs/configuration.md documents', () => {
    for (const v of [
      'PORT',
      'BASE_URL',
      'AUTH_URL',
      'MCP_URL',
      'MONGODB_URI',
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_TASK_QUEUE',
      'LOG_LEVEL',
      'SECRETS_ENCRYPTION_KEY',
    ]) {
      expect(CONFIG_VARIABLES).toContain(v);
    }
  });
});

test('SMTP_URL must be an smtp:// or smtps:// URL and is concealed; MAIL_FROM must name an address', () => {
  const base = { SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), AUTH_URL: 'https://auth.example.com' };
  const config = loadConfig({ ...base, SMTP_URL: 'smtp://user:pass@mail.example.com:587' });
  expect(config.mail.smtpUrl?.reveal()).toBe('smtp://user:pass@mail.example.com:587');
  expect(JSON.stringify(config)).not.toContain('pass@');
  expect(config.mail.from).toBe('Talent platform <no-reply@auth.example.com>');
  expect(loadConfig({ ...base, MAIL_FROM: 'Acme <ops@acme.example>' }).mail.from).toBe('Acme <ops@acme.example>');
  expect(() => loadConfig({ ...base, SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL/);
  expect(() => loadConfig({ ...base, MAIL_FROM: 'nobody' })).toThrow(/MAIL_FROM/);
});
