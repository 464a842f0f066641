import { afterSpending, fundableUnits, fundingRefusal, type FundingState } from '../../core/credits/credits';
import { PRICES } from '../../core/credits/prices';
import { SMALLEST_ANSWER, smallestAnswerRefusal } from '../../core/credits/smallestAnswer';
import { canonicalJson, claimChargeKey, isValidIdempotencyKey, requestFingerprint } from '../../core/idempotency/idempotency';
import { normalizePhone } from '../../core/talent/contactMatchIndex';
import { assertIdentifyingInput, scoreCandidate } from '../../core/talent/matchPeople';
import { quotaWindow } from '../../core/talent/quotas';
import { SearchIndexBuilder } from '../../core/talent/searchIndex';

const state = (over: Partial<FundingState> = {}): FundingState => ({ creditBalance: 10, budgetRemaining: null, familyBudgets: {}, agentSpend: null, ...over });

describe('funding rules', () => {
  test("a paid operation's 402 asks for its smallest answer's price and nothing else", () => {
    expect(SMALLEST_ANSWER).toEqual({ search: PRICES.searchPage, unlock: PRICES.profileUnlock, match: PRICES.personMatch, contactJob: PRICES.contactRecord });
    const broke = state({ creditBalance: 0 });
    for (const kind of Object.keys(SMALLEST_ANSWER) as Array<keyof typeof SMALLEST_ANSWER>) {
      const p = smallestAnswerRefusal(kind, broke, 'kf_1')!;
      expect({ code: p.code, required: p.extensions.required_credits }).toEqual({ code: 'insufficient_credits', required: SMALLEST_ANSWER[kind] });
    }
    expect(smallestAnswerRefusal('unlock', state({ creditBalance: 4 }), 'kf_1')?.code).toBe('insufficient_credits');
    expect(smallestAnswerRefusal('unlock', state({ creditBalance: 5 }), 'kf_1')).toBeNull();
    expect(smallestAnswerRefusal('match', state({ familyBudgets: { kf_1: 0 } }), 'kf_1')?.code).toBe('family_budget_exhausted');
    expect(smallestAnswerRefusal('match', state({ budgetRemaining: 0 }), 'kf_1')?.code).toBe('organization_budget_exhausted');
  });
  test('a bulk charge covers as many units as the credits and every applicable budget allow', () => {
    const s = (over: Partial<FundingState>): FundingState => ({ creditBalance: 100, budgetRemaining: null, familyBudgets: {}, agentSpend: null, ...over });
    expect(fundableUnits(s({}), 'kf_1', 1, 40)).toBe(40);
    expect(fundableUnits(s({ creditBalance: 7 }), 'kf_1', 1, 40)).toBe(7);
    expect(fundableUnits(s({ creditBalance: 7 }), 'kf_1', 2, 40)).toBe(3);
    expect(fundableUnits(s({ budgetRemaining: 5 }), 'kf_1', 1, 40)).toBe(5);
    expect(fundableUnits(s({ familyBudgets: { kf_1: 2, kf_2: 50 } }), 'kf_1', 1, 40)).toBe(2);
    expect(fundableUnits(s({ familyBudgets: { kf_2: 0 } }), 'kf_1', 1, 40)).toBe(40);
    expect(fundableUnits(s({ creditBalance: 0 }), 'kf_1', 1, 40)).toBe(0);
  });

  test.each([
    ['enough credits, no budgets', state(), 10, null],
    ['too few credits', state({ creditBalance: 4 }), 5, 'insufficient_credits'],
    ['family budget short', state({ familyBudgets: { kf_1: 2 } }), 3, 'family_budget_exhausted'],
    ["another family's budget does not apply", state({ familyBudgets: { kf_2: 0 } }), 3, null],
    ['organization budget short', state({ budgetRemaining: 1 }), 2, 'organization_budget_exhausted'],
    ['credits are checked first', state({ creditBalance: 0, budgetRemaining: 0, familyBudgets: { kf_1: 0 } }), 1, 'insufficient_credits'],
    ['a zero budget refuses any spend', state({ budgetRemaining: 0 }), 1, 'organization_budget_exhausted'],
  ])('%s', (_name, s, amount, code) => {
    const refusal = fundingRefusal(s, 'kf_1', amount);
    if (code === null) expect(refusal).toBeNull();
    else expect(refusal).toMatchObject({ code, status: 402 });
  });

  test('spending lowers the balance and every budget that applies, nothing else', () => {
    const after = afterSpending(state({ budgetRemaining: 7, familyBudgets: { kf_1: 4, kf_2: 9 } }), 'kf_1', 3);
    expect(after).toEqual({ creditBalance: 7, budgetRemaining: 4, familyBudgets: { kf_1: 1, kf_2: 9 }, agentSpend: null });
    expect(afterSpending(state(), 'kf_1', 2)).toEqual({ creditBalance: 8, budgetRemaining: null, familyBudgets: {}, agentSpend: null });
  });
});

describe('idempotency keys and fingerprints (SPEC 7.4)', () => {
  test.each([
    ['12345678', true],
    ['a'.repeat(128), true],
    ['550e8400-e29b-41d4-a716-446655440000', true],
    ['ab.c_d:e-f', true],
    ['1234567', false],
    ['a'.repeat(129), false],
    ['-abcdefgh', false],
    ['.abcdefgh', false],
    ['abc defgh', false],
    ['abcdefgé', false],
    ['abcd/efgh', false],
  ])('%s → %s', (key, ok) => {
    expect(isValidIdempotencyKey(key)).toBe(ok);
  });

  test('the same body in another key order or spacing has the same fingerprint; another body does not', () => {
    expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: null })).toBe('{"a":null,"b":[1,{"c":3,"d":2}]}');
    const caller = { workspaceId: 'ws_1', familyId: 'kf_1' };
    const f = (body: unknown) => requestFingerprint('candidates.search', 'POST', '/v1/candidates/search', body, caller);
    expect(f({ query: 'x', page_size: 2 })).toBe(f({ page_size: 2, query: 'x' }));
    expect(f({ query: 'x', page_size: 2 })).not.toBe(f({ query: 'x', page_size: 3 }));
    expect(requestFingerprint('profiles.unlock', 'POST', '/v1/profiles/unlock', { a: 1 }, caller)).not.toBe(f({ a: 1 }));
  });

  test('the fingerprint names the caller: another workspace or key family sends another request', () => {
    const fp = (workspaceId: string, familyId: string) =>
      requestFingerprint('person_matches.create', 'POST', '/v1/person-matches', { email: 'a@b.example' }, { workspaceId, familyId });
    expect(fp('ws_1', 'kf_1')).toBe(fp('ws_1', 'kf_1'));
    expect(fp('ws_2', 'kf_1')).not.toBe(fp('ws_1', 'kf_1'));
    expect(fp('ws_1', 'kf_2')).not.toBe(fp('ws_1', 'kf_1'));
  });

  test('a charge under a claim is the same for every retry and new for the next use of the key', () => {
    const claim = { orgId: 'org_1', workspaceId: 'ws_1', key: 'key-12345678', nonce: 'n1' };
    expect(claimChargeKey('person_matches.create', claim)).toBe(claimChargeKey('person_matches.create', { ...claim }));
    expect(claimChargeKey('person_matches.create', { ...claim, nonce: 'n2' })).not.toBe(claimChargeKey('person_matches.create', claim));
    expect(claimChargeKey('person_matches.create', { ...claim, workspaceId: 'ws_2' })).not.toBe(claimChargeKey('person_matches.create', claim));
    expect(claimChargeKey('candidates.search', claim)).not.toBe(claimChargeKey('person_matches.create', claim));
  });
});

describe('quota windows', () => {
  test('queries count per UTC clock hour, people per UTC day', () => {
    const t = Date.parse('2026-03-04T10:59:59.999Z');
    expect(quotaWindow('queries', t).key).toBe('2026-03-04T10');
    expect(quotaWindow('queries', t + 1).key).toBe('2026-03-04T11');
    expect(quotaWindow('previews', t).key).toBe('2026-03-04');
    expect(quotaWindow('deliveries', Date.parse('2026-03-04T23:59:59Z')).end).toBe(Date.parse('2026-03-05T00:00:00Z'));
  });
});

describe('person matching rules', () => {
  const b = new SearchIndexBuilder();
  b.add({
    _id: 'per_aaaaaaaaaa',
    source: 'src_talentpool',
    fullName: 'Léa Martin',
    headline: '',
    title: 'Senior Data Engineer',
    company: 'Nova Cloud',
    seniority: 'senior',
    yearsExperience: 8,
    skills: [],
    location: { country: 'France', countryCode: 'FR', region: 'Île-de-France', city: 'Paris' },
    profileUrl: 'https://profiles.example.com/in/lea',
  });
  const idx = b.finish(1);

  test('strong identifiers alone, or a name plus one more field', () => {
    expect(() => assertIdentifyingInput({ email: 'a@b.example' })).not.toThrow();
    expect(() => assertIdentifyingInput({ name: 'Léa Martin', company: 'Nova Cloud' })).not.toThrow();
    expect(() => assertIdentifyingInput({ name: 'Léa Martin' })).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    expect(() => assertIdentifyingInput({ company: 'Nova Cloud', title: 'Engineer' })).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });

  test('confidence combines what matched', () => {
    expect(scoreCandidate(idx, 0, { profile_url: 'x' }, new Set(['profile_url']))).toEqual({
      person_id: 'per_aaaaaaaaaa',
      confidence: 0.99,
      matched_on: ['profile_url'],
    });
    const byName = scoreCandidate(idx, 0, { name: 'lea martin', company: 'NOVA CLOUD', title: 'data engineer', location: 'paris' }, new Set());
    expect(byName.matched_on).toEqual(['name', 'company', 'title', 'location']);
    expect(byName.confidence).toBe(0.95);
    expect(scoreCandidate(idx, 0, { name: 'Lea Martin', company: 'Other' }, new Set()).confidence).toBe(0.45);
    const emailAndName = scoreCandidate(idx, 0, { email: 'x', name: 'Léa Martin' }, new Set(['email']));
    expect(emailAndName.confidence).toBeGreaterThan(0.97);
    expect(emailAndName.confidence).toBeLessThanOrEqual(1);
  });

  test('phone numbers compare by digits', () => {
    expect(normalizePhone('+49 (30) 123-456')).toBe('+4930123456');
    expect(normalizePhone('030 123 456')).toBe('030123456');
  });
});
