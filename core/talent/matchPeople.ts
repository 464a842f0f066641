import type { Config } from '../config';
import { charge, fundableUnits, fundingState, type LedgerHeads } from '../credits/credits';
import type { CreditStores } from '../credits/store';
import { PRICES } from '../credits/prices';
import { assertCanFundSmallestAnswer, smallestAnswerRefusal, type Payer } from '../credits/smallestAnswer';
import { claimChargeKey, type RequestClaim } from '../idempotency/idempotency';
import { Problem, validationFailed } from '../problems';
import { normalizeProfileUrl, personTitleTokens } from './searchIndex';
import type { SearchIndex } from './searchIndexColumns';
import { containsPhrase, fold, tokenize } from './searchText';
import { normalizePhone } from './contactMatchIndex';
import type { PeopleIndexes } from './peopleIndexes';
import { sourcesForOrganization, type EnabledSourceReads } from './sources';

export const MATCH_OPERATION = 'person_matches.create';

export interface MatchInput {
  name?: string;
  email?: string;
  phone?: string;
  profile_url?: string;
  company?: string;
  title?: string;
  location?: string;
}

export interface PersonMatch {
  person_id: string;
  confidence: number;
  matched_on: string[];
}

/**
 * Identity resolution. Strong identifiers (email, phone, profile URL) find a person on their
 * own; a name needs one more field to be accepted as a request. Confidence is a fixed,
 * documented combination of what matched (see CONFIDENCE), rounded to two decimals.
 */
export const CONFIDENCE = {
  profile_url: 0.99,
  email: 0.97,
  phone: 0.9,
  name: 0.45,
  company: 0.25,
  title: 0.15,
  location: 0.1,
} as const;

/** Whether the input carries an email, phone or profile URL (each finds a person on its own). */
export function hasStrongIdentifier(input: MatchInput): boolean {
  return Boolean(input.email || input.phone || input.profile_url);
}

export function assertIdentifyingInput(input: MatchInput): void {
  const strong = hasStrongIdentifier(input);
  const weak = [input.company, input.title, input.location].filter(Boolean).length;
  if (!strong && !(input.name && weak >= 1)) {
    throw validationFailed([{ field: 'body', message: 'send at least one of email, phone or profile_url, or a name plus company, title or location' }]);
  }
}

export function scoreCandidate(idx: SearchIndex, ordinal: number, input: MatchInput, strongHits: Set<string>): PersonMatch {
  const matched: string[] = [...strongHits];
  let best = 0;
  for (const s of strongHits) best = Math.max(best, CONFIDENCE[s as keyof typeof CONFIDENCE]);
  let soft = 0;
  if (input.name && fold(idx.names[ordinal]) === fold(input.name)) {
    matched.push('name');
    soft += CONFIDENCE.name;
  }
  if (input.company && idx.companies[idx.companyCode[ordinal]] === fold(input.company)) {
    matched.push('company');
    soft += CONFIDENCE.company;
  }
  if (input.title && containsPhrase(personTitleTokens(idx, ordinal), tokenize(input.title))) {
    matched.push('title');
    soft += CONFIDENCE.title;
  }
  if (input.location && idx.places[idx.placeCode[ordinal]].includes(fold(input.location))) {
    matched.push('location');
    soft += CONFIDENCE.location;
  }
  // A strong identifier plus corroboration closes part of the remaining doubt.
  const confidence = best > 0 ? best + (1 - best) * Math.min(1, soft) : Math.min(0.95, soft);
  return { person_id: idx.personIds[ordinal], confidence: Math.round(confidence * 100) / 100, matched_on: matched };
}

export interface MatchesFound {
  /** Best first, at most `limit`, each at least `minConfidence`. */
  matches: PersonMatch[];
  /** The best confidence of anyone the input pointed at (threshold or not); null when nobody. */
  bestConfidence: number | null;
}

/** What a match reads through the app's own instances (core/deps.ts). */
export interface MatchReads {
  readonly people: PeopleIndexes;
  readonly enabledSources: EnabledSourceReads;
  readonly ledgerHeads: LedgerHeads;
  readonly stores: CreditStores;
  readonly now: () => number;
}

export async function findMatches(
  settings: Pick<Config, 'readCacheMs'>,
  reads: MatchReads,
  orgId: string,
  input: MatchInput,
  minConfidence: number,
  limit: number,
): Promise<MatchesFound> {
  assertIdentifyingInput(input);
  const idx = await reads.people.search.get();
  const usable = new Set((await sourcesForOrganization(settings, reads.enabledSources, orgId)).map((s) => s.id));
  const hits = new Map<number, Set<string>>();
  const hit = (o: number | undefined, field: string | null) => {
    if (o === undefined) return;
    const s = hits.get(o) ?? new Set<string>();
    if (field) s.add(field);
    hits.set(o, s);
  };
  if (input.profile_url) hit(idx.byProfileUrl.get(normalizeProfileUrl(input.profile_url)), 'profile_url');
  if (input.email || input.phone) {
    const ci = await reads.people.contacts.of(idx);
    if (input.email) for (const id of ci.byEmail.get(fold(input.email)) ?? []) hit(idx.ordinalOf.get(id), 'email');
    if (input.phone) for (const id of ci.byPhone.get(normalizePhone(input.phone)) ?? []) hit(idx.ordinalOf.get(id), 'phone');
  }
  if (input.name) for (const o of idx.byName.get(fold(input.name)) ?? []) hit(o, null);
  const scored = [...hits.entries()].filter(([o]) => usable.has(idx.sources[idx.sourceCode[o]])).map(([o, strong]) => scoreCandidate(idx, o, input, strong));
  const bestConfidence = scored.reduce<number | null>((best, m) => (best === null || m.confidence > best ? m.confidence : best), null);
  const matches = scored
    .filter((m) => m.confidence >= minConfidence)
    .sort((a, b) => b.confidence - a.confidence || (a.person_id < b.person_id ? -1 : 1))
    .slice(0, limit);
  return { matches, bestConfidence };
}

/**
 * Why a match answered nothing: the best confidence found and the threshold in force. Only for
 * a request without an email, phone or profile URL: a strong identifier below the threshold
 * (say `min_confidence` 1 with an email) would otherwise tell for free whether the identifier
 * belongs to someone, which is what a paid match sells.
 */
export interface NoMatch {
  best_confidence: number | null;
  min_confidence: number;
}

export interface MatchAnswer {
  data: PersonMatch[];
  credits_charged: number;
  receipt_id: string | null;
  no_match: NoMatch | null;
}

/**
 * Person match, charged PRICES.personMatch per match returned; no match is free. The funds for
 * one match are checked before the dataset is read, so an organization that cannot pay gets the
 * same 402 whatever it sends (nothing tells it whether an email or phone belongs to someone).
 * When the funds cover fewer matches than were found, the best ones they cover are answered and
 * charged. The charge is keyed by the request's claim: a retry of this request finds its own
 * charge (and answers with what it took), a later request under a forgotten key pays afresh.
 */
export async function matchPeople(
  settings: Pick<Config, 'readCacheMs'>,
  reads: MatchReads,
  input: Payer & { claim: RequestClaim; fields: MatchInput; minConfidence: number; limit: number },
): Promise<MatchAnswer> {
  assertIdentifyingInput(input.fields);
  const payer: Payer = { orgId: input.orgId, familyId: input.familyId, agent: input.agent };
  const chargeKey = claimChargeKey(MATCH_OPERATION, input.claim);
  await assertCanFundSmallestAnswer(reads, 'match', payer, chargeKey);
  const { matches, bestConfidence } = await findMatches(settings, reads, input.orgId, input.fields, input.minConfidence, input.limit);
  if (!matches.length) {
    const best = hasStrongIdentifier(input.fields) ? null : bestConfidence;
    return { data: [], credits_charged: 0, receipt_id: null, no_match: { best_confidence: best, min_confidence: input.minConfidence } };
  }
  const paid = await payForMatches(reads, payer, chargeKey, matches.length);
  return { data: matches.slice(0, paid.amount / PRICES.personMatch), credits_charged: paid.amount, receipt_id: paid.receiptId, no_match: null };
}

/**
 * Charges for the `found` matches, or for as many as the funds cover (at least one was covered
 * when the request was checked). Should a concurrent spend leave none, the refusal is the
 * smallest answer's, as before the data was read, so it tells nothing of how many were found.
 */
async function payForMatches(reads: MatchReads, payer: Payer, chargeKey: string, found: number): Promise<{ amount: number; receiptId: string }> {
  let units = found;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // A retry of a request that paid finds its own receipt here, whatever the funds are now.
      const receipt = await charge(reads, { ...payer, amount: units * PRICES.personMatch, operation: MATCH_OPERATION, chargeKey });
      return { amount: receipt.amount, receiptId: receipt.receiptId };
    } catch (err) {
      if (!(err instanceof Problem && err.status === 402)) throw err;
    }
    const state = await fundingState(reads, payer.orgId);
    units = fundableUnits(state, payer.familyId, PRICES.personMatch, found, payer.agent);
    if (units === 0) throw smallestAnswerRefusal('match', state, payer.familyId, payer.agent) ?? new Error('no match is fundable, yet the funds cover one');
  }
  throw new Problem('dependency_unavailable', 'The credit ledger is under heavy contention; retry with the same Idempotency-Key.', {
    headers: { 'Retry-After': '1' },
  });
}
