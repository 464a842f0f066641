import { z } from 'zod';
import { PRICES } from '../../core/credits/prices';
import { PERMISSIONS } from '../../core/keys/permissions';
import { unlockProfile } from '../../core/talent/unlockProfile';
import { payerOf } from '../operations/idempotentRun';
import { defineRoute } from '../routeSpec';
import { IDEMPOTENCY_CONFLICT } from './idempotencyConflict';

const UnlockBody = z.object({ person_id: z.string().min(1).max(128).describe('an opaque person id (per_…)') }).strict();

const ProfileSchema = z.object({
  person_id: z.string(),
  name: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  headline: z.string(),
  title: z.string(),
  company: z.string(),
  seniority: z.string(),
  years_experience: z.number().int().min(0),
  skills: z.array(z.string()),
  languages: z.array(z.string()),
  location: z.object({ country: z.string(), country_code: z.string(), region: z.string(), city: z.string() }),
  positions: z.array(z.object({ title: z.string(), company: z.string(), start: z.string(), end: z.string().nullable(), current: z.boolean() })),
  education: z.array(z.object({ school: z.string(), degree: z.string(), field: z.string(), end_year: z.number().int() })),
  profile_url: z.string(),
  source: z.string(),
});

const UnlockResponse = z.object({
  profile: ProfileSchema.describe('the full profile; contact data is retrieved by a contact-retrieval job'),
  already_unlocked: z.boolean(),
  credits_charged: z.number().int().min(0),
  receipt_id: z.string().nullable(),
});

export const profileRoutes = [
  defineRoute({
    operation: 'profiles.unlock',
    method: 'POST',
    path: '/v1/profiles/unlock',
    tag: 'Profiles',
    summary: 'Unlock a full profile',
    description: `Requires an Idempotency-Key. Costs ${PRICES.profileUnlock} credits; free when this organization already unlocked the person. Counts against the daily delivery quota (\`delivery_quota_exceeded\`).`,
    permission: PERMISSIONS.profilesUnlock,
    idempotent: true,
    paid: true,
    body: UnlockBody,
    responses: {
      200: { description: 'The full profile', schema: UnlockResponse },
      402: {
        description:
          'insufficient_credits (`required_credits` is the unlock price), family_budget_exhausted or organization_budget_exhausted: checked before the person is looked up, so the same for every person id not unlocked before; nothing charged',
      },
      404: { description: "No such person, or the person's source is not enabled for this organization" },
      409: IDEMPOTENCY_CONFLICT,
      429: { description: '`delivery_quota_exceeded` (Retry-After: 1); nothing charged' },
    },
    handler: async (input) => {
      const unlocked = await unlockProfile(input.config, input.deps, {
        ...payerOf(input),
        personId: input.body.person_id,
      });
      return { status: 200, body: unlocked, creditsCharged: unlocked.credits_charged };
    },
  }),
];
