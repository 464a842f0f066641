import type { Config } from '../config';
import type { LedgerHeads } from '../credits/credits';
import type { CreditStores } from '../credits/store';
import { assertCanFundSmallestAnswer, payerOf } from '../credits/smallestAnswer';
import { newId } from '../ids';
import type { KeyPrincipal } from '../keys/apiKeys';
import { Problem, notFound, retryLater } from '../problems';
import { peopleOfSearch } from '../talent/searches';
import type { QuotaWindows } from '../talent/quotas';
import { sourcesForOrganization, type EnabledSourceReads } from '../talent/sources';
import type { TemporalClients } from '../temporal/client';
import { claimDaySlot, returnDaySlot, type DailyJobCapReads } from './dailyJobCap';
import { releaseDeliveries, reserveDeliveries } from './deliveryReservations';
import type { TalentStores } from '../talent/store';
import { carryOutOnRequest, recordJobCancel, temporalJobStarter, type JobStarter } from './jobOutbox';
import {
  CAP_RETRY_AFTER_SECONDS,
  MAX_PERSON_IDS,
  contactRetrievalWorkflowId,
  countsFromTally,
  emptyCounts,
  jobOwnerOf,
  uniquePersonIds,
  unknownPeople,
} from './jobRules';
import { claimJobSlot, releaseJobSlot } from './jobSlots';
import { runningJobTally } from './chunkProcessing';
import type { Logger } from '../observability/logger';
import type { ContactField } from '../contactProvider/contactProvider';
import { JOB_TYPE, type JobCounts, type JobStatus } from './jobTypes';
import type { ContactRetrievalInput } from './workflowInput';
import type { JobDoc, JobStores } from './store';

/**
 * Contact-retrieval jobs as the API (and the tool server) sees them: accept, read, list and
 * cancel. Jobs belong to the key's workspace; the two-running-jobs cap is per organization.
 */

export interface JobView {
  job_id: string;
  type: typeof JOB_TYPE;
  status: JobStatus;
  fields: ContactField[];
  search_id: string | null;
  counts: JobCounts;
  created_at: string;
  completed_at: string | null;
  result_url: string;
  result_expires_at: string | null;
}

function loadJob(stores: JobStores, where: { _id: string; orgId?: string; workspaceId?: string }) {
  return stores.jobs.findJob(where);
}

export function resultUrl(jobId: string): string {
  return `/v1/job-results/${jobId}`;
}

/** Counts of a job: stored once final, from its finished chunks while running. */
export async function jobCounts(stores: JobStores, job: JobDoc): Promise<JobCounts> {
  if (job.status !== 'running' && job.counts) return job.counts;
  return countsFromTally(job.requested, await runningJobTally(stores, job._id));
}

export async function jobView(stores: JobStores, job: JobDoc, counts?: JobCounts): Promise<JobView> {
  return {
    job_id: job._id,
    type: JOB_TYPE,
    status: job.status,
    fields: job.fields,
    search_id: job.searchId ?? null,
    counts: counts ?? (await jobCounts(stores, job)),
    created_at: job.createdAt.toISOString(),
    completed_at: job.completedAt ? job.completedAt.toISOString() : null,
    result_url: resultUrl(job._id),
    result_expires_at: job.resultExpiresAt ? job.resultExpiresAt.toISOString() : null,
  };
}

export interface CreateJobInput {
  principal: KeyPrincipal;
  personIds: string[];
  fields: ContactField[];
  searchId?: string | null;
}

export type { JobStarter } from './jobOutbox';

/** What reaching a job's workflow takes: the app's settings, its Temporal clients and its logger. */
export interface JobTemporalDeps {
  readonly config: Config;
  readonly temporal: TemporalClients;
  readonly logger: Logger;
  readonly now: () => number;
  /** The app's stores: the job and its working documents. */
  readonly stores: JobStores;
}

/** What accepting a job reads through the app's caches (core/deps.ts); a test or the CLI builds its own with createDeps. */
export interface JobCreationDeps extends JobTemporalDeps {
  readonly dailyJobCaps: DailyJobCapReads;
  readonly enabledSources: EnabledSourceReads;
  readonly ledgerHeads: LedgerHeads;
  readonly quotaWindows: QuotaWindows;
  readonly now: () => number;
  readonly stores: CreditStores & TalentStores & JobStores;
  /** Ends a job whose workflow is gone, emitting its `job.completed` (core/webhooks/abandonedJobs.ts): the root wires it. */
  readonly finishAbandonedJob: (jobId: string) => Promise<void>;
}

/** A request waits for Temporal at most TEMPORAL_START_WAIT_MS; the starters carry on from the store after. */
function requestStarter({ config, temporal }: JobTemporalDeps): JobStarter {
  return temporalJobStarter(temporal, config, config.temporal.startWaitMs);
}

/** How long a request holds a job's outbox while it tries: its own wait and a margin, then a starter may take over. */
function requestHoldMs(config: Config): number {
  return Math.max(1000, 2 * config.temporal.startWaitMs);
}

/**
 * Accepts a job: 402 when one record cannot be funded (checked first, before any person is
 * looked up), 422 when a person is unknown to this organization, 429 at the daily job cap, the
 * running-job cap or when the delivery quota has no room left (nothing recorded, nothing
 * charged), otherwise the job, its people and its delivery-quota reservation are recorded when
 * this returns, and its workflow is started, now if Temporal answers within
 * TEMPORAL_START_WAIT_MS, else by the workflow starter as soon as it does (jobOutbox.ts):
 * acceptance never waits on Temporal.
 *
 * `unknownPeople`: `refuse` (a list of ids the caller chose: 422 naming the unknown ones) or
 * `settle_not_found` (a batch over an earlier search: people the organization can no longer
 * see are answered `not_found` by the job, free; past its first ACCEPTANCE_SAMPLE people they
 * are found by the worker, see peopleAtAcceptance).
 */
export async function createContactRetrievalJob(
  deps: JobCreationDeps,
  input: CreateJobInput & { unknownPeople?: 'refuse' | 'settle_not_found' },
  starter: JobStarter = requestStarter(deps),
): Promise<JobView> {
  const { config, stores } = deps;
  const { principal } = input;
  const personIds = uniquePersonIds(input.personIds);
  if (personIds.length === 0)
    throw new Problem('validation_failed', 'The job has no people.', { extensions: { errors: [{ field: 'person_ids', message: 'no people to retrieve' }] } });
  // Before any person is looked up: an organization that cannot pay for one record gets the
  // same 402 whichever ids it sends, and learns nothing of which exist.
  await assertCanFundSmallestAnswer(deps, 'contactJob', payerOf(principal, new Date(deps.now())));
  const usable = new Set((await sourcesForOrganization(config, deps.enabledSources, principal.orgId)).map((s) => s.id));
  const mode = input.unknownPeople ?? 'refuse';
  let people = await peopleAtAcceptance(deps.stores, personIds, usable, mode, Math.min(ACCEPTANCE_SAMPLE, config.contactJobs.chunkSize));
  const jobId = newId('job');
  // On the app's clock: the workflow counts the job's deadline from this instant.
  const acceptedAt = new Date(deps.now());
  const undo: Array<() => Promise<unknown>> = [];
  const rollBack = async () => {
    for (const step of undo.reverse()) await step().catch((err) => deps.logger.warn({ err, jobId }, 'could not undo a step of a refused job'));
  };
  let reservation: { covered: string[]; over: string[] };
  try {
    const daySlot = await claimDaySlot(stores, config, deps.dailyJobCaps, principal.orgId, jobId, acceptedAt.getTime());
    undo.push(() => returnDaySlot(stores, daySlot));
    const slot = await claimJobSlot(stores, principal.orgId, jobId, starter.running, acceptedAt, (abandoned) => deps.finishAbandonedJob(abandoned));
    if (slot === null) {
      throw retryLater(
        'contact_job_concurrency_cap',
        'Two contact-retrieval jobs are already running for this organization; retry when one finishes.',
        CAP_RETRY_AFTER_SECONDS,
      );
    }
    undo.push(() => releaseJobSlot(stores, principal.orgId, jobId));
    // Like the 402, refused only when nobody could be delivered today; people beyond the
    // reservation fail with `delivery_quota_exceeded` (free), as people beyond the credits do.
    const reserve = () => reserveDeliveries(deps.stores, config, principal.orgId, jobId, people.visible, acceptedAt.getTime(), deps.quotaWindows.heads);
    undo.push(() => releaseDeliveries(deps.stores, principal.orgId, jobId, acceptedAt.getTime(), deps.quotaWindows.heads));
    if (people.sourceOf) reservation = await reserve();
    else {
      // Who is delivered within the quota must not depend on people who are gone: when the
      // quota does not cover the whole job, it is reserved again for the people known to exist.
      const whole = await reserve().catch((err: unknown) => {
        if (err instanceof Problem && err.code === 'delivery_quota_exceeded') return null;
        throw err;
      });
      if (whole && whole.over.length === 0) reservation = whole;
      else {
        if (whole) await releaseDeliveries(deps.stores, principal.orgId, jobId, acceptedAt.getTime(), deps.quotaWindows.heads);
        people = await peopleAtAcceptance(deps.stores, personIds, usable, mode, 0);
        reservation = await reserve();
      }
    }
  } catch (err) {
    await rollBack();
    throw err;
  }
  const fields = [...new Set(input.fields)].sort();
  const over = new Set(reservation.over);
  let accepted = false;
  try {
    const sourceOf = people.sourceOf;
    await stores.jobs.insertJobPeople({
      _id: jobId,
      personIds,
      ...(sourceOf ? { sources: personIds.map((p) => sourceOf.get(p) ?? '') } : {}),
      overQuota: personIds.flatMap((p, i) => (over.has(p) ? [i] : [])),
      deliveryQuotaAt: acceptedAt,
    });
    const workflowInput: ContactRetrievalInput = {
      jobId,
      orgId: principal.orgId,
      workspaceId: principal.workspaceId,
      familyId: principal.familyId,
      ...(principal.agent ? { agent: principal.agent } : {}),
      requested: personIds.length,
      fields,
      chunkSize: config.contactJobs.chunkSize,
      concurrency: config.contactJobs.concurrency,
      heartbeatTimeoutMs: config.contactJobs.heartbeatTimeoutMs,
      acceptedAtMs: acceptedAt.getTime(),
    };
    // The outbox record: the job is accepted with this, whatever Temporal's state; this request holds it while it tries.
    const job = await stores.jobs.insertJob({
      _id: jobId,
      ...jobOwnerOf(principal),
      status: 'running',
      fields,
      searchId: input.searchId ?? null,
      requested: personIds.length,
      workflowId: contactRetrievalWorkflowId(jobId),
      deliveryQuotaAt: acceptedAt,
      deliveriesReserved: reservation.covered.length,
      workflowInput,
      workflowStartedAt: null,
      outboxDue: true,
      outboxLeaseUntil: new Date(acceptedAt.getTime() + requestHoldMs(config)),
    });
    accepted = true;
    await carryOutOnRequest(jobId, starter, requestHoldMs(config), deps, { claimed: true });
    return jobView(stores, job, emptyCounts(personIds.length));
  } catch (err) {
    // A job that was not recorded never existed.
    if (!accepted) {
      await stores.jobs.deleteJobPeople(jobId).catch(() => undefined);
      await stores.jobs.deleteJob(jobId).catch(() => undefined);
      await rollBack();
    }
    throw err;
  }
}

/** How many of a large batch job's people acceptance reads at most (peopleAtAcceptance): its first chunk, when smaller. */
const ACCEPTANCE_SAMPLE = 100;

/**
 * What acceptance knows of a job's people: those it may deliver (`visible`) and each one's source
 * (`sourceOf`), or null when the worker reads each chunk's sources itself (chunkProcessing.ts)
 * and answers the people who are gone or of a source the organization may not use `not_found`,
 * as it would have at acceptance. That is the case of a batch job (`settle_not_found`) larger
 * than `sample`: its people come from the organization's own search, so reading the first
 * `sample` of them shows the job has someone to deliver (the one refusal such a job has for
 * people, 422 when none is left), and a 10,000-person job is answered 202 without reading
 * 10,000 people first. A list of ids the caller chose is read whole: each unknown id is a 422.
 */
async function peopleAtAcceptance(
  stores: TalentStores,
  personIds: string[],
  usable: ReadonlySet<string>,
  mode: 'refuse' | 'settle_not_found',
  sample: number,
): Promise<{ visible: string[]; sourceOf: Map<string, string> | null }> {
  if (mode === 'settle_not_found' && sample > 0 && personIds.length > sample) {
    const first = personIds.slice(0, sample);
    if (unknownPeople(first, await stores.talent.sourcesOfPeople(first), usable).length < first.length) return { visible: personIds, sourceOf: null };
  }
  const sourceOf = await stores.talent.sourcesOfPeople(personIds);
  const unknown = unknownPeople(personIds, sourceOf, usable);
  if (unknown.length && mode !== 'settle_not_found') throw unknownPeopleProblem(unknown);
  const hidden = new Set(unknown);
  const visible = hidden.size ? personIds.filter((p) => !hidden.has(p)) : personIds;
  if (visible.length === 0) {
    throw new Problem('validation_failed', 'None of the people is available to this organization.', {
      extensions: { errors: [{ field: 'search_id', message: "none of the search's people is available any more" }] },
    });
  }
  return { visible, sourceOf };
}

/** 422 naming the people this organization cannot see (absent, or of a source it has not enabled: the same to the caller). */
function unknownPeopleProblem(unknown: string[]): Problem {
  const shown = unknown.slice(0, MAX_PERSON_IDS);
  return new Problem('validation_failed', `${unknown.length} person id(s) are unknown: ${shown.join(', ')}. Nothing was created or charged.`, {
    extensions: { errors: [{ field: 'person_ids', message: `unknown person ids: ${shown.join(', ')}` }], unknown_person_ids: shown },
  });
}

/** A job over the first `limit` people of an earlier search of the same organization. */
export async function createBatchContactRetrievalJob(
  deps: JobCreationDeps,
  input: { principal: KeyPrincipal; searchId: string; limit: number; fields: ContactField[] },
): Promise<JobView> {
  await assertCanFundSmallestAnswer(deps, 'contactJob', payerOf(input.principal, new Date(deps.now())));
  const personIds = await peopleOfSearch(deps.stores, input.principal.orgId, input.searchId, input.limit, deps.now());
  if (personIds.length === 0) {
    throw new Problem('validation_failed', 'The search has no people to retrieve.', {
      extensions: { errors: [{ field: 'search_id', message: 'the search returned no people' }] },
    });
  }
  return createContactRetrievalJob(deps, {
    principal: input.principal,
    personIds,
    fields: input.fields,
    searchId: input.searchId,
    unknownPeople: 'settle_not_found',
  });
}

/** The caller's job; a job of another workspace is the same 404 as an absent one. */
export async function findOwnJob(stores: JobStores, principal: KeyPrincipal, jobId: string): Promise<JobDoc> {
  const job = await loadJob(stores, { _id: jobId, workspaceId: principal.workspaceId, orgId: principal.orgId });
  if (!job) throw notFound('contact-retrieval job');
  return job;
}

export async function getContactRetrievalJob(stores: JobStores, principal: KeyPrincipal, jobId: string): Promise<JobView> {
  return jobView(stores, await findOwnJob(stores, principal, jobId));
}

/**
 * Asks a running job to stop: people not yet processed become `cancelled`. 202 with the job
 * as it is now; a finished job cannot be cancelled (409 `invalid_state_transition`).
 */
export async function cancelContactRetrievalJob(deps: JobTemporalDeps, principal: KeyPrincipal | null, jobId: string): Promise<JobView> {
  const { stores } = deps;
  const job = principal ? await findOwnJob(stores, principal, jobId) : await loadJob(stores, { _id: jobId });
  if (!job) throw notFound('contact-retrieval job');
  if (job.status !== 'running') {
    throw new Problem('invalid_state_transition', `The job already finished with status \`${job.status}\`; only a running job can be cancelled.`);
  }
  // Recorded first, so a cancel during a Temporal outage is kept and takes effect when the workflow runs.
  if (!(await recordJobCancel(stores, jobId, new Date(deps.now())))) {
    const now = (await loadJob(stores, { _id: jobId }))!;
    throw new Problem('invalid_state_transition', `The job already finished with status \`${now.status}\`; only a running job can be cancelled.`);
  }
  await carryOutOnRequest(jobId, requestStarter(deps), requestHoldMs(deps.config), deps);
  return jobView(stores, (await loadJob(stores, { _id: jobId }))!);
}
