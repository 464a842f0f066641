import type { Config } from '../config';
import { charge, type LedgerHeads } from '../credits/credits';
import type { CreditStores } from '../credits/store';
import type { TalentStores } from './store';
import { PRICES } from '../credits/prices';
import { assertCanFundSmallestAnswer, type Payer } from '../credits/smallestAnswer';
import { claimChargeKey, type RequestClaim } from '../idempotency/idempotency';
import { notFound } from '../problems';
import type { PersonProfileRecord } from './person';
import { admitToQuota, type QuotaWindows } from './quotas';
import { sourcesForOrganization, type EnabledSourceReads } from './sources';

export const UNLOCK_OPERATION = 'profiles.unlock';

export interface FullProfile {
  person_id: string;
  name: string;
  first_name: string;
  last_name: string;
  headline: string;
  title: string;
  company: string;
  seniority: string;
  years_experience: number;
  skills: string[];
  languages: string[];
  location: { country: string; country_code: string; region: string; city: string };
  positions: Array<{ title: string; company: string; start: string; end: string | null; current: boolean }>;
  education: Array<{ school: string; degree: string; field: string; end_year: number }>;
  profile_url: string;
  source: string;
}

export interface UnlockResult {
  profile: FullProfile;
  /** True when the organization had unlocked this person before (free). */
  already_unlocked: boolean;
  credits_charged: number;
  receipt_id: string | null;
}

function toProfile(p: PersonProfileRecord): FullProfile {
  return {
    person_id: p._id,
    name: p.fullName,
    first_name: p.firstName,
    last_name: p.lastName,
    headline: p.headline,
    title: p.title,
    company: p.company,
    seniority: p.seniority,
    years_experience: p.yearsExperience,
    skills: p.skills,
    languages: p.languages,
    location: { country: p.location.country, country_code: p.location.countryCode, region: p.location.region, city: p.location.city },
    positions: p.positions.map((x) => ({ title: x.title, company: x.company, start: x.start, end: x.end ?? null, current: !x.end })),
    education: p.education.map((e) => ({ school: e.school, degree: e.degree, field: e.field, end_year: e.endYear })),
    profile_url: p.profileUrl,
    source: p.source,
  };
}

/** One unlock charge per organization and person, whichever request pays it. */
export function unlockChargeKey(orgId: string, personId: string): string {
  return `${UNLOCK_OPERATION}:${orgId}:${personId}`;
}

/**
 * Unlocks one full profile (no contact data). Charged PRICES.profileUnlock once per person
 * and organization; free when already unlocked. The charge is keyed by organization and
 * person, so two requests unlocking the same new person at once (different keys, different
 * Idempotency-Keys) write one ledger entry: the one that paid answers with the receipt, the
 * other is free. The entry names the request that paid (its claim), so a retry of that request
 * after a crash finds its own receipt instead of paying again or being told "free".
 *
 * Every refusal comes before the charge, and the funds are checked before the person is read:
 * an organization that cannot pay for an unlock gets the same 402 for every person id, so it
 * learns nothing about which ids exist (its own earlier unlocks, free, are answered first).
 * Then the person is counted against the daily delivery quota (one atomic check-and-count),
 * then charged; nothing after the charge can refuse. Should the charge still find the funds
 * gone (a concurrent spend), the person stays counted for the day (a retry once funded counts
 * nothing more).
 */
export async function unlockProfile(
  settings: Pick<Config, 'readCacheMs' | 'searchQuotas'>,
  reads: {
    readonly enabledSources: EnabledSourceReads;
    readonly quotaWindows: QuotaWindows;
    readonly ledgerHeads: LedgerHeads;
    readonly stores: CreditStores & TalentStores;
    readonly now: () => number;
  },
  input: Payer & { claim: RequestClaim; personId: string },
): Promise<UnlockResult> {
  const { orgId, familyId, agent, personId } = input;
  if (!/^per_[0-9A-Za-z]{8,64}$/.test(personId)) throw notFound('person');
  const requestKey = claimChargeKey(UNLOCK_OPERATION, input.claim);
  const earlier = await reads.stores.talent.findProfileUnlock(orgId, personId);
  const unlockedBefore = earlier !== null && earlier.chargeKey !== requestKey;
  // Already charged for this person (this request before a crash, or another one): no 402.
  if (!earlier) await assertCanFundSmallestAnswer(reads, 'unlock', { orgId, familyId, agent }, unlockChargeKey(orgId, personId));
  const usable = new Set((await sourcesForOrganization(settings, reads.enabledSources, orgId)).map((s) => s.id));
  const person = await reads.stores.talent.findPersonProfile(personId);
  if (!person || !usable.has(person.source)) throw notFound('person');
  const profile = toProfile(person);
  const free = (): UnlockResult => ({ profile, already_unlocked: true, credits_charged: 0, receipt_id: null });
  if (unlockedBefore) {
    await admitToQuota(settings, reads.quotaWindows, 'deliveries', orgId, [personId], reads.now());
    return free();
  }
  await admitToQuota(settings, reads.quotaWindows, 'deliveries', orgId, [personId], reads.now());
  const receipt = await charge(reads, {
    orgId,
    familyId,
    agent,
    amount: PRICES.profileUnlock,
    operation: UNLOCK_OPERATION,
    chargeKey: unlockChargeKey(orgId, personId),
    requestKey,
  });
  // Another request paid for this person first: this one is an unlock of an unlocked profile.
  if (!receipt.charged && receipt.requestKey !== requestKey) return free();
  await reads.stores.talent.recordProfileUnlock({ orgId, personId, chargeKey: requestKey, receiptId: receipt.receiptId });
  return { profile, already_unlocked: false, credits_charged: receipt.amount, receipt_id: receipt.receiptId };
}
