import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError, type Config } from '../core/config';
import {
  createDevelopmentKeyIfEmpty,
  firstKeyChoice,
  firstOrganization,
  firstSessionLines,
  keyCreateCommand,
  sessionPerson,
  type DevelopmentKey,
  type FirstKeyChoice,
} from './devFirstKey';
import { devEnvFile, readDevEnv, writeDevEnv } from './devEnv';
import type { SessionPerson } from '../api/reference/firstCallGuide';
import { ensureWebhookCertificate, type WebhookCertificateFiles } from './devWebhookCertificate';
import { startLocalStack } from './localStack';
import { startProgress } from './progress';
import { LOCAL, ROOT, WORKFLOW_BUNDLES, installMailpit, logSince, portOpen, startMailpit, waitFor, type RunningService } from './localServices';
import { cachedWorkflowBundle } from '../worker/workflowBundle';

/**
 * `npm run dev`: the whole service on this machine, no Docker. Installs what is missing,
 * starts FerretDB, the Temporal dev server (with its UI), Mailpit (the mail server, with its
 * web UI; not when SMTP_URL is set), the worker and the API, waits for
 * each to be ready, prints where everything is, and stops every child on Ctrl-C.
 * MONGODB_URI / TEMPORAL_ADDRESS, when set, are used as given and nothing is started for them.
 * On a first start (no organization in the store) it also creates a development key; see
 * scripts/devFirstKey.ts. Flags: --no-dev-key skips that, --dev-key allows it in a MONGODB_URI
 * you supplied. DEV_DATA_DIR moves the data (and the pid file) out of .local/data.
 */
const USAGE = 'usage: npm run dev [-- --no-dev-key | --dev-key]';
const DATA = process.env.DEV_DATA_DIR ? resolve(process.env.DEV_DATA_DIR) : join(LOCAL, 'data');
const PID_FILE = process.env.DEV_DATA_DIR ? join(DATA, 'dev.pid') : join(LOCAL, 'dev.pid');

function devFlags(): { devKey: boolean; noDevKey: boolean } {
  try {
    const { values } = parseArgs({ args: process.argv.slice(2), strict: true, options: { 'dev-key': { type: 'boolean' }, 'no-dev-key': { type: 'boolean' } } });
    return { devKey: values['dev-key'] === true, noDevKey: values['no-dev-key'] === true };
  } catch (err) {
    process.stderr.write(`[dev] ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const ports = {
  api: Number(process.env.PORT || 8080),
  mongo: Number(process.env.DEV_MONGODB_PORT || 27017),
  temporal: Number(process.env.DEV_TEMPORAL_PORT || 7233),
  temporalUi: Number(process.env.DEV_TEMPORAL_UI_PORT || 8233),
  mailSmtp: Number(process.env.DEV_MAIL_SMTP_PORT || 1025),
  mailUi: Number(process.env.DEV_MAIL_UI_PORT || 8025),
  /** The worker's metrics (WORKER_METRICS_PORT), when that port is free. */
  workerMetrics: Number(process.env.WORKER_METRICS_PORT || process.env.DEV_WORKER_METRICS_PORT || 9464),
};

const say = (m: string) => process.stdout.write(`[dev] ${m}\n`);

function fail(message: string): never {
  process.stderr.write(`[dev] ${message}\n`);
  process.exit(1);
}

function alreadyRunning(): number | undefined {
  if (!existsSync(PID_FILE)) return undefined;
  const pid = Number(readFileSync(PID_FILE, 'utf8'));
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * The dev stack's settings file: a persistent local encryption key (so secrets sealed in one
 * run open in the next) and the addresses of the store and Temporal server this start runs, so
 * the operator CLI and local scripts reach them whatever DEV_* ports are set. Addresses the
 * person supplied are not written (they may carry credentials); the start prints them instead.
 */
function writeDevSettings(addresses: { MONGODB_URI?: string; TEMPORAL_ADDRESS?: string }): string {
  const file = devEnvFile();
  const previous = readDevEnv(file);
  const values: Record<string, string> = {};
  // A key the person set is theirs: used, never written down. Otherwise the checkout keeps one.
  const keptKey = previous.SECRETS_ENCRYPTION_KEY ?? (process.env.SECRETS_ENCRYPTION_KEY ? undefined : randomBytes(32).toString('base64'));
  if (keptKey) values.SECRETS_ENCRYPTION_KEY = keptKey;
  if (addresses.MONGODB_URI) values.MONGODB_URI = addresses.MONGODB_URI;
  if (addresses.TEMPORAL_ADDRESS) values.TEMPORAL_ADDRESS = addresses.TEMPORAL_ADDRESS;
  writeDevEnv(file, values);
  return process.env.SECRETS_ENCRYPTION_KEY || keptKey!;
}

/**
 * The URLs this start serves, beside the addresses: `npm run token`, the operator CLI's
 * `webhook listen` and other local tools read them, so a non-default PORT needs no export.
 */
function recordUrls(cfg: Pick<Config, 'baseUrl' | 'authUrl' | 'mcpUrl'>, webhookTls: WebhookCertificateFiles | null): void {
  const file = devEnvFile();
  const { DEV_WEBHOOK_CERT_FILE: _cert, DEV_WEBHOOK_KEY_FILE: _key, ...previous } = readDevEnv(file);
  writeDevEnv(file, {
    ...previous,
    BASE_URL: cfg.baseUrl,
    AUTH_URL: cfg.authUrl,
    MCP_URL: cfg.mcpUrl,
    ...(webhookTls ? { DEV_WEBHOOK_CERT_FILE: webhookTls.certFile, DEV_WEBHOOK_KEY_FILE: webhookTls.keyFile } : {}),
  });
}

/**
 * Local webhooks without set-up: a loopback certificate, trusted by this start's worker and API
 * for deliveries to loopback (`webhook listen` serves with it). Only under NODE_ENV=development
 * or test, the only ones where those relaxations start; settings the person made are kept.
 */
async function trustLocalWebhooks(env: NodeJS.ProcessEnv): Promise<WebhookCertificateFiles | null> {
  if (env.NODE_ENV !== 'development' && env.NODE_ENV !== 'test') return null;
  const files = await ensureWebhookCertificate(join(DATA, 'webhook-tls'));
  env.WEBHOOK_ALLOWED_CIDRS ||= '127.0.0.0/8,::1/128';
  env.WEBHOOK_EXTRA_CA_FILE ||= files.certFile;
  return files;
}

/**
 * The worker and the API run under the TypeScript loader this start runs under (tsx's, as
 * `npm run dev` starts it, or the swc hook the tests start it with), loaded straight into each
 * child's node: no second launcher process per child.
 */
const TYPESCRIPT_LOADER_ARGS = process.execArgv.flatMap((arg, i, all) => {
  if (/^(--require|--import|-r)=/.test(arg)) return [arg];
  return (arg === '--require' || arg === '--import' || arg === '-r') && all[i + 1] !== undefined ? [arg, all[i + 1]] : [];
});

function startNode(name: string, script: string, env: NodeJS.ProcessEnv): RunningService {
  const child: ChildProcess = spawn(process.execPath, [...TYPESCRIPT_LOADER_ARGS, script], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return { name, child, stop };
}

const startedAt = Date.now();

async function bundleWorkflowCode(): Promise<string> {
  const began = Date.now();
  const log = (m: string) => process.stderr.write(`[dev] workflow bundle: ${m}\n`);
  const { path, built } = await cachedWorkflowBundle(WORKFLOW_BUNDLES, { warn: log, error: log });
  say(
    built
      ? `workflow code bundled in ${((Date.now() - began) / 1000).toFixed(1)} s (kept for the next start)`
      : 'workflow code unchanged since an earlier start: its bundle is reused',
  );
  return path;
}

async function main(): Promise<void> {
  mkdirSync(DATA, { recursive: true });
  const running = alreadyRunning();
  if (running) fail(`the service is already running (pid ${running}); stop it with Ctrl-C in its terminal or \`kill ${running}\`.`);
  if (await portOpen(ports.api)) fail(`port ${ports.api} is already in use; set PORT to another port.`);

  const flags = devFlags();
  const useOwnStore = !process.env.MONGODB_URI;
  const useOwnTemporal = !process.env.TEMPORAL_ADDRESS;
  const useOwnMail = !process.env.SMTP_URL;
  const ownAddresses = {
    MONGODB_URI: useOwnStore ? `mongodb://127.0.0.1:${ports.mongo}/talent` : undefined,
    TEMPORAL_ADDRESS: useOwnTemporal ? `127.0.0.1:${ports.temporal}` : undefined,
  };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV || 'development',
    PORT: String(ports.api),
    SECRETS_ENCRYPTION_KEY: writeDevSettings(ownAddresses),
  };
  // The console and the sign-in pages on `localhost`, not 127.0.0.1: browsers bind passkeys to a
  // host name and offer none on an IP address (docs/accounts.md "Passkeys").
  env.AUTH_URL ||= `http://localhost:${ports.api}`;
  if (ownAddresses.MONGODB_URI) env.MONGODB_URI = ownAddresses.MONGODB_URI;
  if (ownAddresses.TEMPORAL_ADDRESS) env.TEMPORAL_ADDRESS = ownAddresses.TEMPORAL_ADDRESS;
  if (useOwnMail) env.SMTP_URL = `smtp://127.0.0.1:${ports.mailSmtp}`;
  const webhookTls = await trustLocalWebhooks(env);
  const keyChoice = firstKeyChoice({ nodeEnv: env.NODE_ENV, storeSupplied: !useOwnStore, askedFor: flags.devKey, skipped: flags.noDevKey });

  let cfg;
  try {
    cfg = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }

  recordUrls(cfg, webhookTls);
  writeFileSync(PID_FILE, String(process.pid));
  const children: RunningService[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping …');
    for (const c of [...children].reverse()) await c.stop();
    rmSync(PID_FILE, { force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  // A child that stops while the others start ends the start at once, saying which and why,
  // instead of a wait for the API that can only time out; once ready, it stops everything.
  let ready = false;
  let startFailed: (err: Error) => void = () => undefined;
  const died = new Promise<never>((_, reject) => (startFailed = reject));
  died.catch(() => undefined);
  const watch = (c: RunningService) => {
    const exited = (code: number | null, signal: NodeJS.Signals | null) => {
      if (stopping) return;
      const said = c.logFile ? logSince(c.logFile) : '';
      const what = `${c.name} exited (${code ?? signal})`;
      if (!ready) return startFailed(new Error(`${what} while the others were starting${said ? `; the end of its log (${c.logFile}):\n${said}` : ''}`));
      process.stderr.write(`[dev] ${what}; stopping everything\n`);
      void stopAll(1);
    };
    if (c.child.exitCode !== null || c.child.signalCode !== null) exited(c.child.exitCode, c.child.signalCode);
    else c.child.once('exit', exited);
  };
  const orDied = <T>(step: Promise<T>): Promise<T> => Promise.race([step, died]);

  // The workflow code is bundled while the services start, or reused from an earlier start of
  // the same sources; a bundle the person set (WORKER_WORKFLOW_BUNDLE) is theirs.
  const workflowBundle = env.WORKER_WORKFLOW_BUNDLE ? null : bundleWorkflowCode();
  workflowBundle?.catch(() => undefined);

  try {
    await startLocalStack({
      dir: DATA,
      mongodbUri: useOwnStore ? undefined : env.MONGODB_URI,
      temporalAddress: useOwnTemporal ? undefined : env.TEMPORAL_ADDRESS,
      ports: { mongo: ports.mongo, temporal: ports.temporal, temporalUi: ports.temporalUi },
      temporalDbFile: join(DATA, 'temporal.db'),
      services: children,
      log: say,
      announce: say,
    });
    if (useOwnMail) {
      await installMailpit(say);
      // A Mailpit of a start that is still stopping frees its ports within moments; anything else keeps them.
      const mailPortsFree = async () => !(await portOpen(ports.mailSmtp)) && !(await portOpen(ports.mailUi));
      await waitFor('the mail ports', mailPortsFree, 10_000).catch(() => {
        throw new Error(`port ${ports.mailSmtp} or ${ports.mailUi} is in use; set DEV_MAIL_SMTP_PORT and DEV_MAIL_UI_PORT, or SMTP_URL to use that server`);
      });
      say(`starting Mailpit: SMTP on 127.0.0.1:${ports.mailSmtp}, web UI on ${ports.mailUi}`);
      children.push(
        await startMailpit({ smtpPort: ports.mailSmtp, uiPort: ports.mailUi, dataFile: join(DATA, 'mailpit.db'), logFile: join(DATA, 'mailpit.log') }),
      );
    }
    children.forEach(watch);
    const prepared = await orDied(prepareStore(cfg, keyChoice));
    if (workflowBundle) env.WORKER_WORKFLOW_BUNDLE = await orDied(workflowBundle);
    say('starting worker');
    const workerMetrics = await workerMetricsPort(env);
    const worker = startNode('worker', 'worker/main.ts', { ...env, SERVICE_NAME: 'worker', WORKER_METRICS_PORT: String(workerMetrics ?? 0) });
    children.push(worker);
    watch(worker);
    say('starting API');
    const apiProc = startNode('api', 'api/server.ts', { ...env, SERVICE_NAME: 'api' });
    children.push(apiProc);
    watch(apiProc);
    const apiUrl = `http://127.0.0.1:${ports.api}`;
    await orDied(waitFor('API', async () => (await fetch(`${apiUrl}/readyz`)).ok, 120_000, apiProc.child));
    ready = true;
    say(`ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    printWelcome({
      apiUrl,
      consoleUrl: `${cfg.authUrl}/console`,
      uiUrl: useOwnTemporal ? `http://127.0.0.1:${ports.temporalUi}` : "(your Temporal server's UI)",
      mailUrl: useOwnMail ? `http://127.0.0.1:${ports.mailUi}` : '(your mail server, SMTP_URL)',
      workerMetricsUrl: workerMetrics === null ? null : `http://${cfg.host}:${workerMetrics}/metrics`,
      mongodbUri: env.MONGODB_URI!,
      suppliedExports: [
        ...(useOwnStore ? [] : ['MONGODB_URI']),
        ...(useOwnTemporal ? [] : ['TEMPORAL_ADDRESS']),
        ...(process.env.SECRETS_ENCRYPTION_KEY && process.env.SECRETS_ENCRYPTION_KEY !== readDevEnv(devEnvFile()).SECRETS_ENCRYPTION_KEY
          ? ['SECRETS_ENCRYPTION_KEY']
          : []),
      ],
      keyChoice,
      webhookTls,
      ...prepared,
    });
  } catch (err) {
    process.stderr.write(`[dev] ${(err as Error).message}\n`);
    await stopAll(1);
  }
}

/**
 * The port of the worker's metrics in development (WORKER_METRICS_PORT, else
 * DEV_WORKER_METRICS_PORT, else 9464), or none: when set to 0, when the port is taken (said),
 * or outside development/test without METRICS_TOKEN (the worker would refuse to start).
 */
async function workerMetricsPort(env: NodeJS.ProcessEnv): Promise<number | null> {
  if (ports.workerMetrics === 0) return null;
  if (env.NODE_ENV !== 'development' && env.NODE_ENV !== 'test' && !env.METRICS_TOKEN) return null;
  if (await portOpen(ports.workerMetrics)) {
    say(`port ${ports.workerMetrics} is in use: the worker serves no metrics (set DEV_WORKER_METRICS_PORT)`);
    return null;
  }
  return ports.workerMetrics;
}

/** Seeds people on the first run and, when allowed, creates the development key in an empty store. */
async function prepareStore(
  { mongodbUri, apiAudience: audience, secretsKey }: Pick<Config, 'mongodbUri' | 'apiAudience' | 'secretsKey'>,
  keyChoice: FirstKeyChoice,
): Promise<{ devKey: DevelopmentKey | null; org: { org_id: string; workspace_id: string } | null; person: SessionPerson | null }> {
  const { openStore } = await import('../core/store/connection');
  const { createStores } = await import('../core/deps');
  const seed = await import('./seeding/seedPeople');
  const { purposeKeysOf } = await import('../core/crypto/purposeKeys');
  const store = await openStore(mongodbUri);
  const stores = createStores(store.connection);
  try {
    await store.ensureIndexes();
    if ((await stores.talent.peopleCount()) === 0) {
      const count = Number(process.env.DEV_SEED_PEOPLE || 2000);
      say(`seeding ${count} synthetic people (first run) …`);
      const progress = startProgress('[dev] seeding people', { total: count });
      try {
        await seed.seedPeople(stores, { purposeKeys: purposeKeysOf({ secretsKey }), count, onProgress: (p) => progress.update(p.inserted) });
      } finally {
        progress.finish();
      }
    }
    const devKey = keyChoice.allowed ? await createDevelopmentKeyIfEmpty(stores, audience) : null;
    return { devKey, org: devKey ? null : await firstOrganization(stores), person: devKey ? await sessionPerson(stores) : null };
  } finally {
    await store.close();
  }
}

/** A value as one shell word. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/**
 * How an integrator's own HTTPS receiver on this machine gets deliveries: serve it with the
 * loopback certificate this start's worker trusts, and tell other clients to trust it too.
 */
function trustLines(tls: WebhookCertificateFiles | null): string[] {
  if (!tls) return [];
  return [
    'Your own HTTPS receiver on this machine instead (registered as the endpoint, e.g. https://127.0.0.1:<port>/<path>): serve it with',
    "the development certificate, which this start's worker trusts (valid for 127.0.0.1, ::1 and localhost only):",
    `  certificate ${tls.certFile}`,
    `  key         ${tls.keyFile}`,
    `and have your own clients trust it: curl --cacert ${tls.certFile} …, or NODE_EXTRA_CA_CERTS=${tls.certFile} for Node.`,
  ];
}

function printWelcome(w: {
  apiUrl: string;
  consoleUrl: string;
  uiUrl: string;
  mailUrl: string;
  workerMetricsUrl: string | null;
  mongodbUri: string;
  /** Variables the person supplied that another terminal needs too (the dev settings file has the rest). */
  suppliedExports: string[];
  keyChoice: FirstKeyChoice;
  devKey: DevelopmentKey | null;
  org: { org_id: string; workspace_id: string } | null;
  person: SessionPerson | null;
  /** The loopback certificate this start's worker trusts, when it made one. */
  webhookTls: WebhookCertificateFiles | null;
}): void {
  const admin = 'npm run --silent admin --';
  const exports = w.suppliedExports.map((name) =>
    name === 'SECRETS_ENCRYPTION_KEY'
      ? '  export SECRETS_ENCRYPTION_KEY=<the value set in this terminal>'
      : `  export ${name}=${shellWord(process.env[name] ?? '')}`,
  );
  const keyLines = w.devKey
    ? [
        `A development key was created (organization ${w.devKey.org_id} "Development" with 1000 credits, workspace ${w.devKey.workspace_id}, every developer-API permission).`,
        'It is shown this once (only its hash is stored):',
        '',
        `  ${w.devKey.key}`,
        '',
        'A first session (in another terminal, line by line: whoami, search, unlock, match, a contact-retrieval job and its result;',
        'the fixed Idempotency-Keys make a second run replay the answers without charging again):',
        ...(w.person
          ? firstSessionLines(w.apiUrl, w.devKey.key, w.person).map((l) => `  ${l}`)
          : [`  curl -sS -H "Authorization: Bearer ${w.devKey.key}" ${w.apiUrl}/v1/whoami`]),
      ]
    : [
        ...(w.keyChoice.allowed ? [] : [`No development key: ${w.keyChoice.reason}.`]),
        `Make a key (in another terminal, same folder; the CLI reads ${devEnvFile()}):`,
        ...exports,
        ...(w.org ? [] : [`  ${admin} org create --name "Acme" --credits 1000`]),
        `  ${keyCreateCommand(admin, w.org)}`,
        `  curl -sS -H "Authorization: Bearer <key>" ${w.apiUrl}/v1/whoami`,
      ];
  const workspace = w.devKey?.workspace_id ?? w.org?.workspace_id;
  const webhookLines = workspace
    ? [
        '',
        'Webhooks on this machine (in another terminal): a local HTTPS receiver as the workspace endpoint, printing each delivery;',
        'then a free job whose job.completed it receives:',
        `  ${admin} webhook listen --workspace ${workspace}`,
        `  ${admin} webhook trigger --workspace ${workspace}`,
        'It keeps one endpoint and signing secret for the workspace across sessions (--new-secret rotates it); a plain HTTP receiver of',
        'your own takes the deliveries with --forward-to http://localhost:<port>/<path>.',
        ...trustLines(w.webhookTls),
      ]
    : [];
  const lines = [
    '',
    'The service is running.',
    `  API            ${w.apiUrl}   (reference: ${w.apiUrl}/openapi.json, readiness: ${w.apiUrl}/readyz)`,
    `  Console        ${w.consoleUrl}   (sign-in pages and passkeys on this host name)`,
    `  Temporal UI    ${w.uiUrl}`,
    `  Mail (Mailpit) ${w.mailUrl}   (every mail the service sends: invitations, password resets, security notices)`,
    ...(w.workerMetricsUrl ? [`  Worker metrics ${w.workerMetricsUrl}   (the API's: ${w.apiUrl}/metrics)`] : []),
    `  Store          ${w.mongodbUri}`,
    '',
    ...keyLines,
    ...webhookLines,
    '',
    'Ctrl-C stops everything.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

void main();
