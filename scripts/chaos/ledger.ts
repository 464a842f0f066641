import { Webhook } from 'standardwebhooks';
import type { Stores } from '../../core/deps';
import { PRICES } from '../../core/credits/prices';
import { CHARGE_OPERATION } from '../../core/jobs/chunkSettlement';
import { DEFAULT_REQUESTS_PER_SECOND } from '../../core/limits/limitTable';
import { MAX_ATTEMPTS } from '../../core/webhooks/retrySchedule';
import type { ReceivedRequest } from '../../test/support/httpsReceiver';
import type { CallRecord } from './apiClient';
import type { FaultLog } from './faults';
import type { ChaosTenant } from './tenants';

/**
 * The exact ledger of a chaos run, read from the store's own collections (jobs, webhook events
 * and delivery records, the credit ledger) and from what the receiver and the client saw.
 * Every line is a check; the run fails when one does not balance.
 */
export interface LedgerLine {
  label: string;
  value: string;
  ok: boolean;
}

export interface LedgerInput {
  /** The stores of the run's own connection. */
  stores: Stores;
  tenants: ChaosTenant[];
  requests: ReceivedRequest[];
  /** Indexes of the requests the receiver answered 503 (failing for a while): not deliveries. */
  refusedByReceiver: Set<number>;
  calls: CallRecord[];
  faults: FaultLog;
  unexpectedWorkerExits: string[];
}

/** Jobs not yet final, events not yet delivered: what the drain waits on. */
export async function outstanding(stores: Stores, orgIds: string[]): Promise<{ runningJobs: number; undeliveredEvents: number }> {
  const runningJobs = await stores.jobs.countRunningJobs(orgIds);
  const events = (await stores.webhooks.events.eventsOfOrganizations(orgIds)).filter((e) => e.endpointId !== null);
  const delivered = new Set((await stores.webhooks.deliveries.deliveriesOfOrganizations(orgIds)).filter((d) => d.status === 'succeeded').map((d) => d.eventId));
  const undeliveredEvents = events.filter((e) => !delivered.has(e._id) && e.status !== 'dead_lettered').length;
  return { runningJobs, undeliveredEvents };
}

export async function reconcile(input: LedgerInput): Promise<LedgerLine[]> {
  const lines: LedgerLine[] = [];
  const line = (label: string, value: string | number, ok = true) => lines.push({ label, value: String(value), ok });
  const orgIds = input.tenants.map((t) => t.orgId);
  const byOrg = new Map(input.tenants.map((t) => [t.orgId, t]));
  const byPath = new Map(input.tenants.map((t) => [t.path, t]));

  // Faults injected.
  for (const [what, n] of Object.entries(input.faults.counts)) line(`fault: ${what}`, n, !what.startsWith('fault step failed'));
  line(
    'workers that exited on their own',
    input.unexpectedWorkerExits.length ? input.unexpectedWorkerExits.join('; ') : 0,
    input.unexpectedWorkerExits.length === 0,
  );

  // Jobs.
  const jobs = await input.stores.jobs.jobsOfOrganizations(orgIds);
  const byStatus: Record<string, number> = {};
  for (const j of jobs) byStatus[j.status] = (byStatus[j.status] ?? 0) + 1;
  line('jobs created', jobs.length, jobs.length > 0);
  line(
    'jobs by status',
    Object.entries(byStatus)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ') || 'none',
  );
  line('jobs stuck (still running)', byStatus.running ?? 0, !byStatus.running);

  // Events and deliveries.
  const events = await input.stores.webhooks.events.eventsOfOrganizations(orgIds);
  const eventByJob = new Map(events.map((e) => [e.jobId, e]));
  const finalJobs = jobs.filter((j) => j.status !== 'running');
  const missingEvents = finalJobs.filter((j) => !eventByJob.has(j._id));
  line('job.completed events (one per finished job)', `${events.length} for ${finalJobs.length} finished jobs`, missingEvents.length === 0);
  if (missingEvents.length) line('finished jobs without an event', missingEvents.map((j) => j._id).join(' '), false);

  const verified = new Map<string, number>();
  let badSignature = 0;
  let foreign = 0;
  let refusedPosts = 0;
  for (const [index, r] of input.requests.entries()) {
    if (input.refusedByReceiver.has(index)) {
      refusedPosts += 1;
      continue;
    }
    const tenant = byPath.get(r.path);
    const id = String(r.headers['webhook-id'] ?? '');
    if (!tenant) {
      foreign += 1;
      continue;
    }
    try {
      new Webhook(tenant.secret).verify(r.body, {
        'webhook-id': id,
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      });
      verified.set(id, (verified.get(id) ?? 0) + 1);
    } catch {
      badSignature += 1;
    }
  }
  const deliveries = await input.stores.webhooks.deliveries.deliveriesOfOrganizations(orgIds);
  const attemptsByEvent = new Map<string, typeof deliveries>();
  for (const d of deliveries) attemptsByEvent.set(d.eventId, [...(attemptsByEvent.get(d.eventId) ?? []), d]);
  let delivered = 0;
  let deadLettered = 0;
  const lost: string[] = [];
  const badDeadLetters: string[] = [];
  for (const e of events.filter((x) => x.endpointId)) {
    if (verified.has(e._id)) delivered += 1;
    else if (e.status === 'dead_lettered') {
      deadLettered += 1;
      const n = (attemptsByEvent.get(e._id) ?? []).filter((d) => d.replay === 0).length;
      if (n !== MAX_ATTEMPTS) badDeadLetters.push(`${e._id} after ${n}`);
    } else lost.push(e._id);
  }
  const duplicates = [...verified.values()].reduce((s, n) => s + n - 1, 0);
  const recordedSuccess = new Set(deliveries.filter((d) => d.status === 'succeeded').map((d) => d.eventId));
  const receivedNoRecord = [...verified.keys()].filter((id) => !recordedSuccess.has(id)).length;
  line('events delivered and verified with standardwebhooks', delivered);
  line('events dead-lettered after exactly nine attempts (0 expected: the real 21 h schedule)', deadLettered, badDeadLetters.length === 0);
  if (badDeadLetters.length) line('dead letters with another attempt count', badDeadLetters.join(' '), false);
  line('events neither delivered nor dead-lettered', lost.length ? `${lost.length}: ${lost.slice(0, 5).join(' ')}` : 0, lost.length === 0);
  line('duplicate deliveries (same webhook-id accepted again)', duplicates);
  line('POSTs the receiver refused with 503 (failing for a while)', refusedPosts);
  line('received and verified but no succeeded delivery record', receivedNoRecord);
  line('POSTs whose signature did not verify', badSignature, badSignature === 0);
  line('POSTs to an unknown path', foreign, foreign === 0);
  line('failed attempts recorded (receivers down, kills)', deliveries.filter((d) => d.status === 'failed').length);

  // Workers SIGKILLed while a POST was held by a slow receiver: sent again, same bytes, one webhook-id.
  for (const id of input.faults.killedInFlight) {
    const posts = input.requests.filter((r) => String(r.headers['webhook-id'] ?? '') === id);
    const bodies = new Set(posts.map((r) => r.body));
    const records = attemptsByEvent.get(id) ?? [];
    const succeeded = records.filter((d) => d.status === 'succeeded').length;
    line(
      `event ${id} (worker killed mid-POST): POSTs / distinct bodies / attempt records / succeeded (target ≥2 / 1 / = POSTs / 1)`,
      `${posts.length} / ${bodies.size} / ${records.length} / ${succeeded}`,
      posts.length >= 2 && bodies.size === 1 && succeeded === 1 && records.length === posts.length,
    );
  }
  if (!input.faults.killedInFlight.length) line('workers killed while a POST was in flight (target ≥ 1)', 0, false);

  // Credits.
  const entries = await input.stores.credits.ledgerEntriesOfOrgs(orgIds);
  let mismatched = 0;
  let negative = 0;
  let chainBroken = 0;
  let charged = 0;
  let deliveredRecords = 0;
  for (const orgId of orgIds) {
    const mine = entries.filter((e) => e.orgId === orgId).sort((a, b) => a.seq - b.seq);
    const jobCharges = mine.filter((e) => e.kind === 'charge' && e.operation === CHARGE_OPERATION).reduce((s, e) => s + Math.abs(e.amount), 0);
    const recs = jobs.filter((j) => j.orgId === orgId).reduce((s, j) => s + (j.counts?.delivered ?? 0), 0) * PRICES.contactRecord;
    charged += jobCharges;
    deliveredRecords += recs;
    if (jobCharges !== recs) mismatched += 1;
    negative += mine.filter((e) => e.balanceAfter < 0).length;
    let balance = 0;
    for (const e of mine) {
      if (e.kind === 'grant' || e.kind === 'opening') balance = e.balanceAfter;
      else if (e.kind === 'charge') balance -= Math.abs(e.amount);
      if (e.balanceAfter !== balance) chainBroken += 1;
      balance = e.balanceAfter;
    }
    if (mine.some((e, i) => e.seq !== (mine[0]?.seq ?? 0) + i)) chainBroken += 1;
    if (!byOrg.get(orgId)) chainBroken += 1;
  }
  line('credits charged for contact records', charged);
  line('contact records delivered (counts.delivered × price)', deliveredRecords, charged === deliveredRecords && mismatched === 0);
  const receipted = (await input.stores.jobs.countChargedDeliveries(jobs.map((j) => j._id))) * PRICES.contactRecord;
  line('delivered records with a receipt × price (target: = charged = delivered)', receipted, receipted === charged && receipted === deliveredRecords);
  line(
    'workers ended between a chunk charge and its record (CHAOS_EXIT_AT=after_charge; target ≥ 1)',
    input.faults.exitsAfterCharge,
    input.faults.exitsAfterCharge > 0,
  );
  line('ledger entries with a negative balance', negative, negative === 0);
  line('ledger entries whose balance does not follow from the previous one', chainBroken, chainBroken === 0);
  line(
    'paid calls answered 2xx (search, unlock, job)',
    input.calls.filter((c) => ['search', 'unlock', 'job'].includes(c.what) && c.status >= 200 && c.status < 300).length,
  );

  // Store outages.
  for (const [i, o] of input.faults.outages.entries()) {
    const answered = o.probes.filter((p) => p.status !== 200);
    const good = answered.filter((p) => p.status === 503 && p.code === 'dependency_unavailable' && p.retryAfter && p.ms <= 2000);
    const seen = o.probes
      .map((p) => `${p.status || 'no answer'}${p.code ? ` ${p.code}` : ''}${p.retryAfter ? ` RA=${p.retryAfter}` : ''} in ${p.ms} ms`)
      .join('; ');
    line(`store outage ${i + 1}: answers while down`, seen, answered.length > 0 && good.length === answered.length);
    line(
      `store outage ${i + 1}: API recovered by itself`,
      o.recoveredAfterMs === null ? 'no, within 60 s' : `${o.recoveredAfterMs} ms after the store was back`,
      o.recoveredAfterMs !== null,
    );
  }

  // Limits: admissions per organization per wall-clock second. A call sent and answered within
  // the same second was admitted in that second; one spanning two seconds is not counted.
  const perSecond = new Map<string, number>();
  let refusals = 0;
  let refusalsWithoutRetryAfter = 0;
  for (const c of input.calls) {
    if (c.status === 429) {
      refusals += 1;
      if (!c.retryAfter) refusalsWithoutRetryAfter += 1;
      continue;
    }
    // No answer or a 5xx: the request may have failed before admission decided; not counted.
    if (c.status === 0 || c.status >= 500 || c.what.includes('probe')) continue;
    const s = Math.floor(c.startedAt / 1000);
    if (s !== Math.floor(c.endedAt / 1000)) continue;
    perSecond.set(`${c.orgId}@${s}`, (perSecond.get(`${c.orgId}@${s}`) ?? 0) + 1);
  }
  const worst = Math.max(0, ...perSecond.values());
  const over = [...perSecond.entries()].filter(([, n]) => n > DEFAULT_REQUESTS_PER_SECOND);
  line('requests refused (429)', refusals);
  line('refusals without Retry-After', refusalsWithoutRetryAfter, refusalsWithoutRetryAfter === 0);
  line(`most requests admitted for one organization in one second (limit ${DEFAULT_REQUESTS_PER_SECOND})`, worst, worst <= DEFAULT_REQUESTS_PER_SECOND);
  if (over.length) line('seconds over the limit (org@epoch-second: admitted)', over.map(([k, n]) => `${k}: ${n}`).join(', '), false);
  const statuses: Record<string, number> = {};
  for (const c of input.calls) statuses[c.status || 'no answer'] = (statuses[c.status || 'no answer'] ?? 0) + 1;
  const internal = input.calls.filter((c) => c.status >= 500 && c.code !== 'dependency_unavailable').length;
  line('5xx answers other than 503 dependency_unavailable (target 0)', internal, internal === 0);
  const fiveHundreds = input.calls.filter((c) => c.status === 500).length;
  line('500 answers (target 0)', fiveHundreds, fiveHundreds === 0);
  const hangs = input.calls.filter((c) => c.endedAt - c.startedAt > 2000);
  line(
    'calls answered after more than 2 s, or not at all within 2 s (target 0)',
    hangs.length ? `${hangs.length}: ${[...new Set(hangs.map((c) => `${c.what} ${c.status}`))].slice(0, 6).join(', ')}` : 0,
    hangs.length === 0,
  );

  // Temporal outages: creates accepted at once from the store, and carried out after the return.
  for (const [i, o] of input.faults.temporalOutages.entries()) {
    const accepted = o.creates.filter((c) => c.status === 202);
    // The organization's two running-job slots fill with the first two (accepted jobs hold them while Temporal is down).
    const capped = o.creates.filter((c) => c.status === 429).length;
    const slowest = Math.max(0, ...o.creates.map((c) => c.ms));
    const slowestAccepted = Math.max(0, ...accepted.map((c) => c.ms));
    const unfinished = accepted.filter((c) => jobs.find((j) => j._id === c.jobId)?.status === 'running').length;
    line(
      `Temporal outage ${i + 1} (${(o.downMs / 1000).toFixed(0)} s): creates sent / 202 / 429 running-job cap, slowest 202, slowest answer (target 202 or the cap's 429 for all, ≤ 1000 ms)`,
      `${o.creates.length} / ${accepted.length} / ${capped}, ${slowestAccepted} ms, ${slowest} ms`,
      accepted.length > 0 && accepted.length + capped === o.creates.length && slowest <= 1000,
    );
    line(`Temporal outage ${i + 1}: of those jobs, still running at the end (target 0)`, unfinished, unfinished === 0);
  }

  // A second replica SIGKILLed under load.
  for (const [i, k] of input.faults.replicaKills.entries()) {
    const survivors5xx = input.calls.filter(
      (c) => c.base !== k.killedBase && c.startedAt >= k.at - 5000 && c.status >= 500 && c.code !== 'dependency_unavailable',
    ).length;
    const dropped = input.calls.filter((c) => c.base === k.killedBase && c.status === 0).length;
    line(`replica kill ${i + 1}: 5xx from the surviving replica (target 0)`, survivors5xx, survivors5xx === 0);
    line(`replica kill ${i + 1}: calls to the killed replica dropped (its open connections)`, dropped);
    line(
      `replica kill ${i + 1}: its leases still held ${k.ttlSeconds} s (lease_ttl_seconds) after the kill (target 0 of ${k.leasesAtKill.length})`,
      k.stillHeldAfterTtl,
      k.stillHeldAfterTtl === 0,
    );
  }
  line(
    'API calls by status',
    Object.entries(statuses)
      .map(([s, n]) => `${s} ${n}`)
      .join(', '),
  );
  return lines;
}

export function printLedger(lines: LedgerLine[]): string {
  const width = Math.max(...lines.map((l) => l.label.length));
  return lines.map((l) => `${l.ok ? ' ' : '✗'} ${l.label.padEnd(width)}  ${l.value}`).join('\n');
}
