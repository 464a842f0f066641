import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Deps } from '../../core/deps';
import { systemDestinationLookup } from '../../core/outbound/destinationResolver';
import type { WebhookStores } from '../../core/webhooks/store/webhookStore';
import { verifySignature } from '../../core/webhooks/signPayload';
import {
  activeEndpointOf,
  findEndpoint,
  listEndpoints,
  registerEndpoint,
  rotateSecret,
  updateEndpoint,
  type DestinationSettings,
} from '../../core/webhooks/webhookEndpoints';
import { liveSecrets, openSecrets, type StoredSecret } from '../../core/webhooks/webhookSecrets';
import { UsageError, intFlag, optionalFlag, requireFlag, type AdminCommand, type Flags } from './command';
import { recordOperatorChange } from './operatorAudit';

/**
 * `webhook listen`: the local stand-in for a receiver, like `stripe listen`. It serves HTTPS on
 * loopback with the certificate `npm run dev` made and its worker trusts, points the
 * workspace's webhook endpoint at itself (registering one when there is none), and prints
 * every delivery: event id, attempt, whether its signature verifies against the endpoint's
 * secret, and the body; with --forward-to it passes each delivery on, unchanged, to a local URL
 * (a plain http://localhost receiver is fine) and answers with that URL's status.
 *
 * One endpoint and one secret per workspace across sessions: the endpoint listen registered is
 * disabled when it stops and enabled again, re-pointed at the new listener, by the next session,
 * so a receiver configured with its secret keeps verifying (`--new-secret` rotates it and prints
 * the new one; the old one still verifies for the overlap). An endpoint of the workspace's own is
 * re-pointed while listening and put back after. Development only: the worker delivers to
 * loopback only when `npm run dev` started it (WEBHOOK_ALLOWED_CIDRS, WEBHOOK_EXTRA_CA_FILE).
 */
export const DEV_ONLY = 'is for development only (NODE_ENV=production)';
const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
const MAX_BODY_BYTES = 256 * 1024;
/** The destinations a local receiver is on; only this command registers them. */
const LOOPBACK: readonly string[] = ['127.0.0.0/8', '::1/128'];

export function refuseInProduction(command: string, env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_ENV === 'production') throw new UsageError(`${command} ${DEV_ONLY}`);
}

export interface ListenCertificate {
  cert: string;
  key: string;
}

/** The certificate `npm run dev` made (its files are in .local/dev.env), or the one named by --cert/--key. */
export function listenCertificate(f: Flags, env: NodeJS.ProcessEnv = process.env): ListenCertificate {
  const certFile = optionalFlag(f, 'cert') ?? env.DEV_WEBHOOK_CERT_FILE;
  const keyFile = optionalFlag(f, 'key') ?? env.DEV_WEBHOOK_KEY_FILE;
  if (!certFile || !keyFile || !existsSync(certFile) || !existsSync(keyFile)) {
    throw new UsageError('no local webhook certificate: start `npm run dev` once (it makes one its worker trusts), or pass --cert and --key');
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/** Which attempt of its event a delivery is: the attempt claimed last before it was sent. */
async function attemptOf(stores: WebhookStores, eventId: string): Promise<{ replay: number; attempt: number } | null> {
  let last: { replay: number; attempt: number } | null = null;
  for (const r of await stores.webhooks.deliveries.claimedAttemptsOf(eventId)) {
    if (!last || r.replay > last.replay || (r.replay === last.replay && r.attempt > last.attempt)) last = r;
  }
  return last;
}

/** Whether a delivery's signature verifies against any of the endpoint's live secrets, and why not. */
export function verifyDelivery(
  secrets: readonly string[],
  headers: IncomingMessage['headers'],
  body: string,
  now = Date.now(),
): { verified: boolean; reason?: string } {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signature = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof signature !== 'string' || !Number.isInteger(timestamp)) return { verified: false, reason: 'webhook headers missing' };
  if (Math.abs(now / 1000 - timestamp) > TIMESTAMP_TOLERANCE_SECONDS) return { verified: false, reason: 'timestamp more than 5 minutes away' };
  if (!secrets.some((s) => verifySignature(s, id, timestamp, body, signature)))
    return { verified: false, reason: "no signature matches the endpoint's secret" };
  return { verified: true };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function forward(url: string, req: IncomingMessage, body: string): Promise<{ status: number } | { error: string }> {
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent']) {
    const v = req.headers[name];
    if (typeof v === 'string') headers[name] = v;
  }
  try {
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status };
  } catch (err) {
    return { error: ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message };
  }
}

/** Whether a URL is one a listener of this command served (HTTPS on loopback, path /webhooks). */
export function isListenUrl(url: string): boolean {
  return /^https:\/\/127\.0\.0\.1:\d+\/webhooks$/.test(url);
}

/** The endpoint an earlier session registered and disabled on stopping, newest first. */
async function listenEndpointOf(stores: WebhookStores, scope: { orgId: string; workspaceId: string }) {
  let after: { createdAt: Date; id: string } | undefined;
  for (;;) {
    const { docs, more } = await listEndpoints(stores, scope, { limit: 100, after });
    const found = docs.find((d) => d.state === 'disabled' && isListenUrl(d.url));
    if (found || !more || docs.length === 0) return found;
    const last = docs[docs.length - 1];
    after = { createdAt: last.createdAt, id: last._id };
  }
}

function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => () => resolve(signal);
    process.once('SIGINT', stop('SIGINT'));
    process.once('SIGTERM', stop('SIGTERM'));
  });
}

async function listen(f: Flags, { now, stores, purposeKeys }: Deps): Promise<unknown> {
  refuseInProduction('webhook listen');
  const workspaceId = requireFlag(f, 'workspace');
  const forwardTo = optionalFlag(f, 'forward-to');
  if (forwardTo && !/^https?:\/\//.test(forwardTo)) throw new UsageError('--forward-to must be an http:// or https:// URL');
  const port = intFlag(f, 'port') ?? 0;
  const tls = listenCertificate(f);
  const wsOrgId = await stores.tenancy.orgOfWorkspace(workspaceId);
  if (!wsOrgId) throw new UsageError(`workspace ${workspaceId} does not exist`);
  const scope = { orgId: wsOrgId, workspaceId };
  const say = (line: string) => process.stdout.write(`${line}\n`);

  let secrets: string[] = [];
  let deliveries = 0;
  const server = createServer({ cert: tls.cert, key: tls.key }, (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (req.method !== 'POST') return void res.writeHead(405, { Allow: 'POST' }).end();
      let body: string;
      try {
        body = await readBody(req);
      } catch {
        return void res.writeHead(413).end();
      }
      deliveries++;
      const id = String(req.headers['webhook-id'] ?? '(no webhook-id)');
      const check = verifyDelivery(secrets, req.headers, body);
      const which = await attemptOf(stores, id).catch(() => null);
      const attempt = which ? `attempt ${which.attempt}${which.replay ? ` (replay ${which.replay})` : ''}` : 'attempt ?';
      let answer = 200;
      let forwarded = '';
      if (forwardTo) {
        const out = await forward(forwardTo, req, body);
        answer = 'status' in out ? out.status : 502;
        forwarded = 'status' in out ? ` → ${forwardTo} ${out.status}` : ` → ${forwardTo} failed: ${out.error}`;
      }
      say(`${new Date().toISOString()} ${id} ${attempt} ${check.verified ? 'verified' : `NOT verified (${check.reason})`}${forwarded}`);
      say(`  ${body}`);
      res.writeHead(answer, { 'Content-Type': 'text/plain' }).end(answer < 300 ? 'ok' : 'forward failed');
    })().catch((err: Error) => {
      say(`delivery could not be handled: ${err.message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  const settings: DestinationSettings = { lookupAll: systemDestinationLookup, allowedCidrs: LOOPBACK, purposeKeys };

  const existing = await activeEndpointOf(stores, workspaceId);
  let endpointId = '';
  // The operator's changes of the endpoint are in the organization's audit log like anyone's.
  const endpointChange = (
    action: 'webhook_endpoint.created' | 'webhook_endpoint.updated' | 'webhook_endpoint.retired',
    before: Record<string, unknown> | null,
    after: Record<string, unknown>,
  ) =>
    recordOperatorChange(
      { stores, now },
      {
        orgId: scope.orgId,
        action,
        target: endpointId,
        before: before && { endpoint_id: endpointId, workspace_id: workspaceId, ...before },
        after: { endpoint_id: endpointId, workspace_id: workspaceId, ...after },
      },
    );
  const kept = existing ? undefined : await listenEndpointOf(stores, scope);
  let restore: () => Promise<string>;
  if (existing && !isListenUrl(existing.url)) {
    endpointId = existing._id;
    const previousUrl = existing.url;
    await updateEndpoint(stores, scope, endpointId, { url }, settings);
    await endpointChange('webhook_endpoint.updated', { url: previousUrl }, { url });
    say(`endpoint ${endpointId} of workspace ${workspaceId} re-pointed from ${previousUrl} to ${url} (its own secret verifies)`);
    restore = async () => {
      // Put back as it was, unchecked: that URL passed the policy when it was set. Only if it
      // still points here (nobody re-pointed it meanwhile).
      await stores.webhooks.endpoints.restoreEndpointUrl(endpointId, url, previousUrl);
      await endpointChange('webhook_endpoint.updated', { url }, { url: previousUrl });
      return `endpoint ${endpointId} points at ${previousUrl} again`;
    };
  } else {
    const reused = existing ?? kept;
    if (reused) {
      endpointId = reused._id;
      await updateEndpoint(stores, scope, endpointId, { url, state: 'active' }, settings);
      await endpointChange('webhook_endpoint.updated', { url: reused.url, state: reused.state }, { url, state: 'active' });
      say(`endpoint ${endpointId} of workspace ${workspaceId} enabled at ${url} with the signing secret of the earlier sessions`);
    } else {
      const registered = await registerEndpoint(stores, scope, url, settings, new Date(now()));
      endpointId = registered.endpoint.endpoint_id;
      await endpointChange('webhook_endpoint.created', null, { url, state: 'active' });
      say(`endpoint ${endpointId} registered for workspace ${workspaceId} at ${url}`);
      say(`its signing secret (shown once, kept for later sessions; --new-secret rotates it): ${registered.secret}`);
    }
    restore = async () => {
      // Disabled, not retired: the next session enables it again with the same secret.
      await updateEndpoint(stores, scope, endpointId, { state: 'disabled' }, settings);
      await endpointChange('webhook_endpoint.updated', { state: 'active' }, { state: 'disabled' });
      return `endpoint ${endpointId} disabled (kept with its secret for the next webhook listen)`;
    };
  }
  if (f['new-secret'] === true) {
    const rotated = await rotateSecret(stores, scope, endpointId, purposeKeys, new Date(now()));
    say(`new signing secret (shown once; the previous one verifies until ${rotated.previous_secret_expires_at}): ${rotated.secret}`);
  }
  const current = await findEndpoint(stores, scope, endpointId);
  secrets = openSecrets(purposeKeys, endpointId, liveSecrets(current.secrets as StoredSecret[], new Date()));
  say(`listening on ${url}${forwardTo ? `, forwarding to ${forwardTo}` : ''}; Ctrl-C stops and puts the endpoint back`);
  say(`produce a job.completed without spending credits: npm run --silent admin -- webhook trigger --workspace ${workspaceId}`);

  const signal = await untilStopped();
  // Kept-alive connections from the worker would hold close() open: end them too.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
  const restored = await restore();
  say(`${signal}: ${restored}`);
  return { endpoint_id: endpointId, url, deliveries, restored };
}

/**
 * `webhook trigger`: a real contact-retrieval job that costs nothing, so its `job.completed`
 * reaches the workspace's endpoint: one seeded person of the built-in source the local contact
 * provider has no record of, answered `not_found` (free). Development only, and only with the
 * local provider, whose seeded answers make it free.
 */
async function trigger(f: Flags, deps: Deps): Promise<unknown> {
  const { config } = deps;
  refuseInProduction('webhook trigger');
  if (config.contactProvider.kind !== 'local') throw new UsageError('webhook trigger needs CONTACT_PROVIDER=local (the seeded dataset), where its job is free');
  const workspaceId = requireFlag(f, 'workspace');
  const { BUILT_IN_SOURCE_ID } = await import('../../core/talent/sources');
  const { createContactRetrievalJob } = await import('../../core/jobs/contactRetrievalJobs');
  const { OPERATOR_CREDENTIAL_ID } = await import('../../core/jobs/jobStarter');
  const orgId = await deps.stores.tenancy.orgOfWorkspace(workspaceId);
  if (!orgId) throw new UsageError(`workspace ${workspaceId} does not exist`);
  const app = await deps.stores.tenancy.oldestApplicationOfOrg(orgId);
  if (!app) throw new Error(`organization ${orgId} has no application`);
  let personId: string | undefined;
  let after = '';
  while (!personId) {
    const page = await deps.stores.talent.personIdsOfSourceAfter(BUILT_IN_SOURCE_ID, after, 200);
    if (page.length === 0) throw new Error('no seeded person without contacts was found: seed people first (npm run seed)');
    const withContacts = await deps.stores.talent.personIdsWithProviderContacts(page);
    personId = page.find((p) => !withContacts.has(p));
    after = page[page.length - 1];
  }
  const job = await createContactRetrievalJob(deps, {
    principal: {
      keyId: OPERATOR_CREDENTIAL_ID,
      familyId: OPERATOR_CREDENTIAL_ID,
      orgId,
      workspaceId,
      applicationId: app,
      audience: config.apiAudience,
      scopes: [],
    },
    personIds: [personId],
    fields: ['email'],
  });
  const endpoint = await activeEndpointOf(deps.stores, workspaceId);
  return {
    job_id: job.job_id,
    person_id: personId,
    credits: 0,
    webhook: endpoint
      ? `job.completed goes to ${endpoint.url} when the job finishes (seconds)`
      : 'the workspace has no active webhook endpoint: nothing will be delivered',
  };
}

export const webhookListenCommands: Record<string, AdminCommand> = {
  'webhook listen': {
    usage:
      'webhook listen --workspace W [--forward-to URL] [--new-secret] [--port P] [--cert FILE] [--key FILE] (development only: a local HTTPS receiver as the workspace endpoint, one endpoint and secret kept across sessions)',
    run: listen,
  },
  'webhook trigger': {
    usage: 'webhook trigger --workspace W (development only: a free job whose job.completed goes to the workspace endpoint)',
    run: trigger,
  },
};
