import { z } from 'zod';
import { PRICES } from '../../core/credits/prices';
import { MAILBOX_LIMITS, withinMailboxLimits } from '../../core/mailboxLimits';
import { PERMISSIONS } from '../../core/keys/permissions';
import { CONFIDENCE, matchPeople } from '../../core/talent/matchPeople';
import { payerOf } from '../operations/idempotentRun';
import { defineRoute } from '../routeSpec';
import { IDEMPOTENCY_CONFLICT } from './idempotencyConflict';

const field = (max: number) => z.string().trim().min(1).max(max).regex(/\S/, 'must not be blank').optional();

const MatchBody = z
  .object({
    name: field(200),
    email: z
      .string()
      .trim()
      .email()
      .max(320)
      .refine(withinMailboxLimits, `at most ${MAILBOX_LIMITS.localPart} characters before the @ and ${MAILBOX_LIMITS.domain} after it`)
      .optional(),
    // Not trimmed: the pattern itself allows spaces, so the document's pattern is the whole rule.
    phone: z
      .string()
      .regex(/^\+?[\d\s().-]{6,32}$/, 'must be a phone number')
      .optional(),
    profile_url: z.string().trim().url().max(500).optional(),
    company: field(200),
    title: field(200),
    location: field(200).describe('city, region, country name or ISO country code'),
    min_confidence: z.number().min(0).max(1).default(0.8),
    limit: z.number().int().min(1).max(10).default(5).describe('at most this many matches'),
  })
  .strict()
  .meta({
    // What matchPeople requires: one strong identifier, or a name with one more field.
    anyOf: [
      { required: ['email'] },
      { required: ['phone'] },
      { required: ['profile_url'] },
      { required: ['name', 'company'] },
      { required: ['name', 'title'] },
      { required: ['name', 'location'] },
    ],
  });

const MatchResponse = z.object({
  data: z
    .array(
      z.object({
        person_id: z.string(),
        confidence: z.number().min(0).max(1),
        matched_on: z.array(z.enum(['email', 'phone', 'profile_url', 'name', 'company', 'title', 'location'])),
      }),
    )
    .describe('best first; empty when nothing reaches min_confidence'),
  credits_charged: z.number().int().min(0),
  receipt_id: z.string().nullable(),
  no_match: z
    .object({
      best_confidence: z
        .number()
        .min(0)
        .max(1)
        .nullable()
        .describe(
          'the best confidence of anyone a name (with company, title, location) pointed at, below the threshold; null when nobody, and always null when the request has an email, phone or profile_url (that would tell for free whether it belongs to someone)',
        ),
      min_confidence: z.number().min(0).max(1).describe("the threshold in force (the request's `min_confidence`, default 0.8)"),
    })
    .nullable()
    .describe('why `data` is empty (lower `min_confidence` or send more fields); null when there are matches'),
});

export const personMatchRoutes = [
  defineRoute({
    operation: 'person_matches.create',
    method: 'POST',
    path: '/v1/person-matches',
    tag: 'Person matching',
    summary: 'Match a person from identifying fields',
    description:
      `Requires an Idempotency-Key. Send at least one of email, phone, profile_url, or a name plus company, title or location. Costs ${PRICES.personMatch} credit per match returned; no match is free. ` +
      `The funds for one match are checked before anything is looked up: without them the answer is 402 whatever the fields are. When the funds cover fewer matches than were found, the best ones they cover are returned and charged. ` +
      `Confidence: the best strong identifier (profile_url ${CONFIDENCE.profile_url}, email ${CONFIDENCE.email}, phone ${CONFIDENCE.phone}) raised by corroborating fields, or without one the sum of name ${CONFIDENCE.name}, company ${CONFIDENCE.company}, title ${CONFIDENCE.title}, location ${CONFIDENCE.location} (at most 0.95).`,
    permission: PERMISSIONS.personMatchesCreate,
    idempotent: true,
    paid: true,
    body: MatchBody,
    responses: {
      200: { description: 'The matches (possibly none)', schema: MatchResponse },
      402: {
        description:
          'insufficient_credits (`required_credits` is the price of one match), family_budget_exhausted or organization_budget_exhausted: the funds cannot pay for one match, whatever the fields; nothing looked up, nothing charged',
      },
      409: IDEMPOTENCY_CONFLICT,
      422: { description: '`validation_failed`: not enough identifying fields, or a malformed one' },
    },
    handler: async (input) => {
      const { min_confidence, limit, ...fields } = input.body;
      const matched = await matchPeople(input.config, input.deps, {
        ...payerOf(input),
        fields,
        minConfidence: min_confidence,
        limit,
      });
      return { status: 200, body: matched, creditsCharged: matched.credits_charged };
    },
  }),
];
