import { z } from 'zod';
import { PRICES } from '../../core/credits/prices';
import { PERMISSIONS } from '../../core/keys/permissions';
import { SENIORITIES } from '../../core/talent/person';
import { searchCandidates } from '../../core/talent/searchPages';
import { SEARCH_CURSOR_PATTERN } from '../../core/talent/searchCursor';
import { SOURCE_CATALOGUE } from '../../core/talent/sources';
import { payerOf } from '../operations/idempotentRun';
import { cursorParameter } from './cursorParameter';
import { defineRoute } from '../routeSpec';
import { IDEMPOTENCY_CONFLICT } from './idempotencyConflict';

const text = (max: number) => z.string().trim().min(1).max(max).regex(/\S/, 'must not be blank');
const list = (max: number, itemMax = 100) => z.array(text(itemMax)).min(1).max(max);

const Filters = z
  .object({
    titles: list(20).optional().describe('current title contains one of these phrases (whole words, case-insensitive)'),
    skills: list(20).optional().describe('has every one of these skills (exact skill names, case-insensitive)'),
    locations: list(20).optional().describe('city, region, country name or ISO country code equals one of these'),
    seniority: z.array(z.enum(SENIORITIES)).min(1).max(SENIORITIES.length).optional(),
    current_company: list(20).optional().describe('current employer equals one of these'),
    min_years_experience: z.number().int().min(0).max(60).optional(),
  })
  .strict();

const SearchBody = z
  .object({
    query: z
      .string()
      .max(500)
      .optional()
      .describe('free text; every word must appear in the profile; a word in the current title or skills ranks higher than a passing mention'),
    filters: Filters.optional().describe('exact filters; they narrow, never rank'),
    sources: z
      .array(z.enum(SOURCE_CATALOGUE.map((s) => s.id) as [string, ...string[]]))
      .min(1)
      .max(10)
      .optional()
      .describe('source ids (GET /v1/search/sources); a source not enabled for the organization is 422; default: every usable source'),
    page_size: z.number().int().min(1).max(50).default(20),
    cursor: cursorParameter('`next_cursor` of the previous page; the other parameters may be omitted, and if sent must be the same', SEARCH_CURSOR_PATTERN),
  })
  .strict()
  .describe('A new search needs words in `query`, at least one filter, or the `cursor` of an earlier page (otherwise 422).');

const PreviewSchema = z.object({
  person_id: z.string().describe('opaque person id: unlock it, match against it or retrieve its contacts'),
  name: z.string(),
  headline: z.string(),
  title: z.string(),
  company: z.string(),
  seniority: z.enum(SENIORITIES),
  years_experience: z.number().int().min(0),
  location: z.object({ country: z.string(), country_code: z.string(), region: z.string(), city: z.string() }),
  top_skills: z.array(z.string()),
  source: z.string(),
});

const SearchPageSchema = z.object({
  search_id: z.string().describe('names this search; a batch contact-retrieval job can work through its people'),
  data: z.array(PreviewSchema).describe('previews: no contact data'),
  next_cursor: z.string().nullable(),
  total_estimate: z.number().int().min(0).describe('how many people match, extrapolated when the search stopped early; pages reach the first 10,000'),
  credits_charged: z.number().int().min(0),
  receipt_id: z.string().nullable(),
});

/** What the links from a search page carry to the next step: the search, or its first person. */
const SEARCH = { search_id: '$response.body#/search_id' };
const FIRST_PERSON = { person_id: '$response.body#/data/0/person_id' };

export const candidateRoutes = [
  defineRoute({
    operation: 'candidates.search',
    method: 'POST',
    path: '/v1/candidates/search',
    tag: 'Candidate search',
    summary: 'Search candidates',
    description:
      `Requires an Idempotency-Key. Costs ${PRICES.searchPage} credit per page of results; an empty page is free. ` +
      'Quotas per organization: unique people previewed per day (`preview_quota_exceeded`), distinct queries per hour (`distinct_query_cap`, counted whether or not the search finds anyone); refused requests are not charged and their searches are not stored. ' +
      'A new search is refused before it runs when the organization cannot pay for one page (402, even if it would find nobody) or its preview quota is used up. ' +
      'A search visits at most a fixed number of candidates (250,000 unless the operator set another budget); past it, it answers with the best of what it visited and an extrapolated `total_estimate`.',
    permission: PERMISSIONS.candidatesSearch,
    idempotent: true,
    paid: true,
    body: SearchBody,
    responses: {
      200: {
        description: 'A page of previews',
        schema: SearchPageSchema,
        links: {
          RetrieveContacts: {
            operation: 'contact_retrieval_jobs.batch_create',
            description: "A contact-retrieval job over this search's people",
            requestBody: SEARCH,
          },
          UnlockProfile: { operation: 'profiles.unlock', description: 'The full profile of the first person', requestBody: FIRST_PERSON },
        },
      },
      400: { description: "`invalid_idempotency_key`, or `invalid_cursor` (forged, altered, another organization's, or another search's cursor)" },
      402: {
        description:
          'insufficient_credits (`required_credits` is the price of one page), family_budget_exhausted or organization_budget_exhausted: checked before anything is searched or read; nothing charged',
      },
      409: IDEMPOTENCY_CONFLICT,
      410: { description: '`cursor_expired`: start the search again' },
      422: { description: '`validation_failed`, including unknown or not enabled sources' },
      429: { description: '`preview_quota_exceeded` or `distinct_query_cap` (Retry-After: 1); nothing charged' },
    },
    handler: async (input) => {
      const page = await searchCandidates(input.config, input.deps, {
        ...payerOf(input),
        query: input.body.query,
        filters: input.body.filters,
        sources: input.body.sources,
        pageSize: input.body.page_size,
        cursor: input.body.cursor,
      });
      return { status: 200, body: page, creditsCharged: page.credits_charged };
    },
  }),
];
