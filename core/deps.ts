import type { Config } from './config';
import { LedgerHeads } from './credits/credits';
import { DailyJobCapReads } from './jobs/dailyJobCap';
import { createClaimGenerations, type ClaimGenerations } from './jobs/contactFieldClaims';
import { createJobPeopleReads, type JobPeopleReads } from './jobs/jobPeople';
import { KeyReads } from './keys/apiKeys';
import { ClientAddressLimits } from './limits/clientAddressLimits';
import { Turns } from './inTurn';
import { createLogger, type Logger } from './observability/logger';
import { exitPoints, type ReachExitPoint } from './faultInjection';
import { LimitSettingsReads } from './limits/limitSettings';
import { StoreAdmission } from './limits/requestAdmission';
import { PublicClients } from './oauth/publicClients';
import { SigningKeys } from './oauth/signingKeys';
import { QuotaWindows } from './talent/quotas';
import { EnabledSourceReads } from './talent/sources';
import { openStore, unopenedStore, type StoreHandle } from './store/connection';
import { createAuditStore, type AuditStore } from './audit/store';
import { createUsageStore, type UsageStore } from './usage/store';
import { createMailStore, type MailStore } from './mail/store';
import { createIdempotencyStore, type IdempotencyStore } from './idempotency/store';
import { createCreditStore, type CreditStore } from './credits/store';
import { createTalentStore, type TalentStore } from './talent/store';
import { createTenancyStore, type TenancyStore } from './tenancy/store';
import { createKeysStore, type KeysStore } from './keys/store';
import { createLimitsStore, type LimitsStore } from './limits/store';
import { createOAuthStore, type OAuthStore } from './oauth/store';
import { createUserStore, type UserStore } from './users/store';
import { createPasskeyStore, type PasskeyStore } from './users/passkeysStore';
import { createWebhookStore, type WebhookStore } from './webhooks/store/webhookStore';
import { createJobStore, type JobStore } from './jobs/store';
import type { Connection } from 'mongoose';
import { createTemporalClients, type TemporalClients } from './temporal/client';
import { createPeopleIndexes, type PeopleIndexes } from './talent/peopleIndexes';
import type { UsageCounters } from './usage/usageCounters';
import { DecoyPasswordHash } from './users/signIn';
import type { LookupAll } from './outbound/destinationPolicy';
import { systemDestinationLookup } from './outbound/destinationResolver';
import { TrustAnchors } from './outbound/trustAnchors';
import { OutboundConnections } from './outbound/outboundConnections';
import { finishAbandonedJob } from './webhooks/abandonedJobs';
import { purposeKeysOf, type PurposeKeys } from './crypto/purposeKeys';

/**
 * What one composition root (api/server.ts, worker/main.ts, the operator CLI's scripts/admin.ts,
 * scripts/seed.ts, a benchmark's stack, a test) builds once and passes down: its settings, its
 * connections and the state that belongs to it rather than to a module, so two apps with
 * different settings live side by side in one process.
 */
/**
 * Each area's store, built on the root's connection. An area's functions take the stores they
 * need as their first argument (`stores: { audit: AuditStore }`), so callers pass `deps.stores`.
 */
export interface Stores {
  readonly audit: AuditStore;
  readonly usage: UsageStore;
  readonly mail: MailStore;
  readonly idempotency: IdempotencyStore;
  readonly credits: CreditStore;
  readonly talent: TalentStore;
  readonly tenancy: TenancyStore;
  readonly keys: KeysStore;
  readonly limits: LimitsStore;
  readonly oauth: OAuthStore;
  readonly users: UserStore;
  readonly passkeys: PasskeyStore;
  readonly webhooks: WebhookStore;
  readonly jobs: JobStore;
}

/** The areas' stores on `connection` (the root's, from `openStore`). */
export function createStores(connection: Connection): Stores {
  return {
    audit: createAuditStore(connection),
    usage: createUsageStore(connection),
    mail: createMailStore(connection),
    idempotency: createIdempotencyStore(connection),
    credits: createCreditStore(connection),
    talent: createTalentStore(connection),
    tenancy: createTenancyStore(connection),
    keys: createKeysStore(connection),
    limits: createLimitsStore(connection),
    oauth: createOAuthStore(connection),
    users: createUserStore(connection),
    passkeys: createPasskeyStore(connection),
    webhooks: createWebhookStore(connection),
    jobs: createJobStore(connection),
  };
}

export interface Deps {
  /** The app's Temporal clients, connected on first use; whoever built them closes them. */
  readonly temporal: TemporalClients;
  /** The app's clock (milliseconds since the epoch). */
  readonly now: () => number;
  /** The root's logger; below an operation, a child of it bound to the request, organization and operation. */
  readonly logger: Logger;
  /** The store connection the root opened (ping, indexes, close). */
  readonly store: StoreHandle;
  /** The areas' stores on that connection. */
  readonly stores: Stores;
  readonly config: Config;
  /** The purpose keys of the config's master secret (and of the previous one during a rotation), each derived once. */
  readonly purposeKeys: PurposeKeys;
  /** Admission against the store: the organization's window and in-flight places, each operation's window. */
  readonly admission: StoreAdmission;
  /** The operator's daily job caps, through a read cache. */
  readonly dailyJobCaps: DailyJobCapReads;
  /** API keys by hash, through a read cache. */
  readonly keyReads: KeyReads;
  /** The organizations' limit settings, through a read cache. */
  readonly limitSettings: LimitSettingsReads;
  /** The search sources each organization enabled, through a read cache. */
  readonly enabledSources: EnabledSourceReads;
  /** The search quota windows (previews, queries, deliveries) this app has read or written: hints, the store decides. */
  readonly quotaWindows: QuotaWindows;
  /** The people of the jobs this process works on, read once per job. */
  readonly jobPeople: JobPeopleReads;
  /** The contact-field claim generations this process has seen: hints, the store decides. */
  readonly claimGenerations: ClaimGenerations;
  /** The people indexes searches and matches read. */
  readonly people: PeopleIndexes;
  /** Calls of this app that take turns per key: an organization's search scans. */
  readonly turns: Turns;
  /** The token signing keys, cached per app; a rotation through them takes effect in this app at once. */
  readonly signingKeys: SigningKeys;
  /** Metadata-document clients: documents cached and fetches bounded per app. */
  readonly publicClients: PublicClients;
  /** The password hash a sign-in of an unknown email spends its time on. */
  readonly decoy: DecoyPasswordHash;
  /** What outbound HTTPS to customers' URLs trusts (the system roots and WEBHOOK_EXTRA_CA_FILE), each file read once. */
  readonly trustAnchors: TrustAnchors;
  /** The keep-alive pools and TLS contexts of outbound HTTPS to customers' URLs; closed with the app. */
  readonly outbound: OutboundConnections;
  /** The DNS lookup of destination checks (webhook endpoints, metadata documents). */
  readonly destinationLookup: LookupAll;
  /** The usage counters every operation run is counted in; absent where nothing is counted. */
  readonly usage?: UsageCounters;
  /** The credit ledger heads this app has seen: hints that spare a charge its head reads, the store decides. */
  readonly ledgerHeads: LedgerHeads;
  /** Ends a job whose workflow is gone and emits its `job.completed`: jobs reach the webhooks through this, never by import. */
  readonly finishAbandonedJob: (jobId: string) => Promise<void>;
  /** The process's exit points: the chaos run arms one (CHAOS_EXIT_AT) in a worker it is about to kill. */
  readonly exitPoint: ReachExitPoint;
  /** The limits per client address (failed authentications, token, JWKS, authorize, metadata fetches); counted in the store. */
  readonly addressLimits: ClientAddressLimits;
}

export function createDeps(config: Config, parts: Partial<Omit<Deps, 'config' | 'stores'>> = {}): Deps {
  const store = parts.store ?? unopenedStore();
  const destinationLookup = parts.destinationLookup ?? systemDestinationLookup;
  const now = parts.now ?? Date.now;
  const logger = parts.logger ?? createLogger();
  const stores = createStores(store.connection);
  const purposeKeys = parts.purposeKeys ?? purposeKeysOf(config);
  const addressLimits = parts.addressLimits ?? new ClientAddressLimits(stores.limits, purposeKeys, now, logger);
  const temporal = parts.temporal ?? createTemporalClients(config);
  const trustAnchors = parts.trustAnchors ?? new TrustAnchors();
  const outbound = parts.outbound ?? new OutboundConnections();
  return {
    temporal,
    now,
    logger,
    store,
    stores,
    config,
    purposeKeys,
    admission: parts.admission ?? new StoreAdmission(stores.limits, now, logger),
    dailyJobCaps: parts.dailyJobCaps ?? new DailyJobCapReads(stores.jobs),
    keyReads: parts.keyReads ?? new KeyReads(stores.keys),
    limitSettings: parts.limitSettings ?? new LimitSettingsReads(stores.limits),
    signingKeys: parts.signingKeys ?? new SigningKeys(stores, config, purposeKeys),
    publicClients: parts.publicClients ?? new PublicClients(config, { stores, destinationLookup, addressLimits, clock: now, logger, trustAnchors, outbound }),
    decoy: parts.decoy ?? new DecoyPasswordHash(config.oauth.passwordScryptLog2N),
    people: parts.people ?? createPeopleIndexes(stores, now, logger),
    turns: parts.turns ?? new Turns(),
    enabledSources: parts.enabledSources ?? new EnabledSourceReads(stores.tenancy),
    jobPeople: parts.jobPeople ?? createJobPeopleReads(stores),
    claimGenerations: parts.claimGenerations ?? createClaimGenerations(),
    quotaWindows: parts.quotaWindows ?? new QuotaWindows(stores.talent),
    destinationLookup,
    trustAnchors,
    outbound,
    usage: parts.usage,
    ledgerHeads: parts.ledgerHeads ?? new LedgerHeads(),
    addressLimits,
    exitPoint: parts.exitPoint ?? exitPoints(config.chaosExitAt, logger),
    finishAbandonedJob: parts.finishAbandonedJob ?? ((jobId) => finishAbandonedJob({ config, temporal, logger, now, stores }, jobId)),
  };
}

/** A process's root: connects the store (creating indexes) and builds the dependencies over it. */
export async function openDeps(config: Config, parts: Partial<Omit<Deps, 'config' | 'store' | 'stores'>> = {}): Promise<Deps> {
  const store = await openStore(config.mongodbUri, config.store);
  // After createDeps: the indexes are those of the models its stores bound.
  const deps = createDeps(config, { ...parts, store });
  await store.ensureIndexes();
  return deps;
}

/** Closes what a root opened: its outbound connections, its Temporal clients, then the store. */
export async function closeDeps(deps: Pick<Deps, 'temporal' | 'store' | 'outbound'>): Promise<void> {
  deps.outbound.close();
  await deps.temporal.close();
  await deps.store.close();
}
