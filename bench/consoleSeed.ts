import type { AuditEventRecord } from '../core/audit/store';
import type { Stores } from '../core/deps';
import type { LedgerEntryRecord } from '../core/credits/store';
import { randomBytes } from 'node:crypto';
import type { Config } from '../core/config';
import { auditEventId } from '../core/audit/auditLog';
import { grantCredits } from '../core/credits/credits';
import { newId } from '../core/ids';
import { createApiKey } from '../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../core/keys/permissions';
import { createOrganization } from '../core/tenancy/provisioning';
import { completeSetup, createUser } from '../core/users/users';
import { seedConsoleWebhooks } from './consoleWebhookSeed';

/**
 * One organization as large as the console's speed targets name: keys, people, ledger and audit
 * entries, webhook delivery attempts and jobs, spread over the last 90 days. Bulk rows are
 * inserted straight into their collections (a benchmark's set-up, not a use case): going through
 * the one writer of each would take the store hours at these sizes.
 */
export interface ConsoleSeedSize {
  keys: number;
  people: number;
  ledgerEntries: number;
  auditEntries: number;
  deliveryAttempts: number;
  jobs: number;
}

export interface SeededOrganization {
  orgId: string;
  workspaceId: string;
  adminEmail: string;
  adminPassword: string;
  keyIds: string[];
  jobIds: string[];
}

const DAY_MS = 24 * 3600_000;
const BATCH = 1000;
const OPERATIONS = ['candidates.search', 'profiles.unlock', 'person_matches.create', 'contact_retrieval_jobs.create'];

async function insertInBatches<T>(count: number, insert: (docs: T[]) => Promise<unknown>, make: (i: number) => T) {
  for (let start = 0; start < count; start += BATCH) {
    const docs: T[] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) docs.push(make(i));
    await insert(docs);
  }
}

export async function seedConsoleOrganization(config: Config, stores: Stores, size: ConsoleSeedSize, now = new Date()): Promise<SeededOrganization> {
  const org = await createOrganization(stores, `console bench ${now.getTime()}`, 0);
  const { org_id: orgId, workspace_id: workspaceId, application_id: applicationId } = org;

  const keyIds: string[] = [];
  const familyIds: string[] = [];
  for (let i = 0; i < size.keys; i++) {
    const key = await createApiKey(stores, {
      orgId,
      workspaceId,
      applicationId,
      scopes: [...ALL_PERMISSIONS],
      audience: config.apiAudience,
      name: `Service ${i}`,
    });
    keyIds.push(key.key_id);
    familyIds.push(key.family_id);
  }

  const adminEmail = `admin-${now.getTime()}@bench.example`;
  const adminPassword = randomBytes(12).toString('base64url');
  const admin = await createUser(stores, config, { orgId, workspaceId, email: adminEmail, permissions: [...ALL_PERMISSIONS], role: 'admin' }, now);
  const token = new URL(admin.setup_url).searchParams.get('token') ?? '';
  const setup = await completeSetup(stores, config, token, adminPassword, adminPassword, now);
  if (!setup.ok) throw new Error(`admin set-up failed: ${setup.message}`);
  for (let i = 1; i < size.people; i++) {
    await createUser(stores, config, { orgId, workspaceId, email: `person-${now.getTime()}-${i}@bench.example`, permissions: ['candidates.search'] }, now);
  }

  // The ledger: the opening entry, one large grant, then charges continuing the chain.
  await grantCredits({ stores, now: () => now.getTime() }, orgId, size.ledgerEntries * 10);
  const head = await stores.credits.newestLedgerEntryOfOrg(orgId);
  let balance = head!.balanceAfter;
  const firstSeq = head!.seq + 1;
  const span = 90 * DAY_MS;
  await insertInBatches<LedgerEntryRecord>(
    size.ledgerEntries,
    (docs) => stores.credits.insertLedgerEntries(docs),
    (i) => {
      const amount = 1 + (i % 5);
      balance -= amount;
      const seq = firstSeq + i;
      return {
        _id: `${orgId}:${seq}`,
        chainId: orgId,
        seq,
        receiptId: newId('rcpt'),
        chargeKey: `bench:${orgId}:${seq}`,
        kind: 'charge',
        orgId,
        familyId: familyIds[i % familyIds.length] ?? null,
        operation: OPERATIONS[i % OPERATIONS.length],
        amount,
        balanceAfter: balance,
        orgBudgetAfter: null,
        familyBudgetsAfter: {},
        createdAt: new Date(now.getTime() - span + (i / size.ledgerEntries) * span),
      };
    },
  );

  await insertInBatches<AuditEventRecord>(
    size.auditEntries,
    (docs) => stores.audit.insertAuditEvents(docs),
    (i) => ({
      _id: auditEventId(orgId, i + 1),
      orgId,
      seq: i + 1,
      time: new Date(now.getTime() - span + (i / size.auditEntries) * span),
      actor: i % 3 ? `key:${keyIds[i % keyIds.length]}` : 'operator',
      action: i % 2 ? 'budget.set' : 'limit.cap_set',
      target: orgId,
      before: null,
      after: { budget: i },
      clientAddress: '127.0.0.1',
    }),
  );

  await stores.audit.insertAuditHead(orgId, size.auditEntries);

  // Through the jobs store, so they are numbered as accepted jobs are; mostly completed, a few of each other final status.
  const jobIds: string[] = [];
  await insertInBatches(
    size.jobs,
    (docs) => stores.jobs.insertJobs(workspaceId, docs as Parameters<Stores['jobs']['insertJobs']>[1]),
    (i) => {
      const id = newId('job');
      jobIds.push(id);
      const createdAt = new Date(now.getTime() - span + (i / size.jobs) * span);
      const status = i % 50 === 7 ? 'cancelled' : i % 10 === 3 ? 'failed' : 'completed';
      return {
        _id: id,
        orgId,
        workspaceId,
        applicationId,
        familyId: familyIds[0],
        keyId: keyIds[0],
        status,
        fields: ['email'],
        searchId: null,
        requested: 10,
        counts: { requested: 10, delivered: 7, not_found: 2, failed: 1, reused: 0, cancelled: 0, pending: 0 },
        stopReason: null,
        workflowId: `contact-retrieval-job:${id}`,
        deliveryQuotaAt: null,
        deliveriesReserved: 0,
        completedAt: new Date(createdAt.getTime() + 60_000),
        resultExpiresAt: new Date(createdAt.getTime() + 30 * DAY_MS),
        resultPurgeAt: null,
        resultExpiredAt: null,
        resultPurgedAt: null,
        createdAt,
        updatedAt: createdAt,
      };
    },
  );

  if (size.deliveryAttempts > 0) await seedConsoleWebhooks(stores, { orgId, workspaceId }, size.deliveryAttempts, jobIds, now);

  return { orgId, workspaceId, adminEmail, adminPassword, keyIds, jobIds };
}
