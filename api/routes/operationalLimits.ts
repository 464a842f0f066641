import { z } from 'zod';
import { PERMISSIONS } from '../../core/keys/permissions';
import {
  BASELINE_ENTRY,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_REQUESTS_PER_SECOND,
  OPERATIONS,
  SCOPE_TYPES,
  describeOperationRates,
} from '../../core/limits/limitTable';
import { reportLimits } from '../../core/limits/limitReport';
import { condensedLimitEntries, limitEntriesPage } from '../../core/limits/operationalLimits';
import { cursorParameter } from './cursorParameter';
import { defineRoute } from '../routeSpec';
import { principalScopes } from '../../core/limits/operationAdmission';

const nullableInt = z.number().int().min(0).nullable();

export const LimitEntrySchema = z.object({
  operation: z.string().describe(`operation name, or \`${BASELINE_ENTRY}\` for the limit every request is held to`),
  scope: z.object({ type: z.enum(SCOPE_TYPES), id: z.string() }).describe('whose requests the entry describes'),
  status: z.enum(['active', 'denied']).describe('`denied` when an administrator blocked the operation; a denied entry reports no figures'),
  source: z
    .enum(['inherited', 'override', 'cleared'])
    .describe('`override` while a custom limit is in force; `inherited` and `cleared` both mean defaults apply'),
  requests_per_second: nullableInt.describe('admitted per second in a strict window aligned to wall-clock seconds'),
  requests_per_minute: nullableInt.describe('exact cap in any trailing minute, or null when none applies'),
  max_concurrency: nullableInt.describe('requests in flight at once'),
  lease_ttl_seconds: nullableInt.describe('how long an in-flight request holds its slot if never released'),
  standard_requests_per_minute: nullableInt.describe('requests_per_second over a minute: a cap must be below it (not a limit in force)'),
  maximum_requests_per_minute: nullableInt.describe('the largest cap that can be set (not a limit in force)'),
  suggested_requests_per_minute: nullableInt.describe('a cap leaving 20% headroom below the standard (not a limit in force)'),
  inherited_ceiling_ref: z.string().nullable().describe('the entry whose ceiling this one is measured against: `<scope type>:<scope id>/<operation>`'),
});

const Query = z.object({
  operation: z
    .enum([BASELINE_ENTRY, ...OPERATIONS])
    .optional()
    .describe('only entries of this operation'),
  scope: z.enum(SCOPE_TYPES).optional().describe('only entries of this scope type'),
  application_id: z.string().min(1).max(100).optional().describe('only entries of this application of the organization'),
  family_id: z.string().min(1).max(100).optional().describe('only entries of this key family of the organization'),
  key_id: z.string().min(1).max(100).optional().describe('only entries of this key of the organization'),
  limit: z.coerce.number().int().min(1).max(100).default(100).describe('entries per page'),
  cursor: cursorParameter('`next_cursor` of the previous page (with the same filters)'),
});

const DESCRIPTION = `Reports the limits enforced for the caller's organization (SPEC 8), one entry per operation and scope, plus the \`${BASELINE_ENTRY}\` entry every request is also held to (the stricter of the two wins).

Without filters the answer is short: the organization's entry of every operation (the defaults, or what the organization set; an organization with no limit of its own reports the defaults), and an entry of the caller's application, key family or key, or of any other scope of the organization, only where it enforces something else than the organization's (a cap or a block set on that scope). With \`operation\`, \`scope\`, \`application_id\`, \`family_id\` or \`key_id\`, every matching entry of the organization, the caller's application, key family and key and every scope carrying an override is listed, including those equal to the organization's. Pages of up to \`limit\` entries; pass \`next_cursor\` as \`cursor\` for the next.

\`standard_requests_per_minute\` is the entry's \`requests_per_second\` over a minute (1,500 at the default 25 per second): what the operation admits in a minute without a cap. A per-minute cap must be below it, so \`maximum_requests_per_minute\` (one less, 1,499 by default) is the largest cap that can be set, and \`suggested_requests_per_minute\` (80% of the standard) a cap that leaves headroom for retries. None of the three is a limit in force.

Defaults: ${DEFAULT_REQUESTS_PER_SECOND} requests per second per organization in a strict one-second window aligned to wall-clock seconds (no burst; a refused request consumes nothing; each key, key family and application is held to the same rate inside the organization total, so more keys never raise it), ${DEFAULT_MAX_CONCURRENCY} requests in flight, no per-minute cap. Every refusal is 429 \`rate_limited\` with \`Retry-After\`; an in-flight refusal's \`Retry-After\` can be as long as \`lease_ttl_seconds\` when slots are held by slow requests or by a failed process. Responses carry \`RateLimit-Policy\` and \`RateLimit\` headers (IETF ratelimit-headers draft syntax) naming every limit that can refuse the request, e.g. \`RateLimit-Policy: "baseline";q=25;w=1, "in_flight";q=25;qu="concurrent-requests"\` and \`RateLimit: "baseline";r=12;t=1, "in_flight";r=24\`, with one more policy per operation rate (named after the operation) and per-minute cap (\`<operation>@<scope type>\`, \`w=60\`). Each \`r\` is what the next request would find; a refused request changes none. Limits never depend on credits.

Operations with their own request rate, enforced on top of the baseline:

${describeOperationRates()}

Per-minute caps and blocks are set for an operation on the organization, one application, key family or key by an administrator; a cap must be below \`standard_requests_per_minute\`. Raising the request rate or the in-flight limit is the operator's.`;

export const operationalLimitsRoutes = [
  defineRoute({
    operation: 'operational_limits.get',
    method: 'GET',
    path: '/v1/operational-limits',
    tag: 'Limits',
    summary: 'Read the enforced operational limits',
    description: DESCRIPTION,
    permission: PERMISSIONS.limitsRead,
    query: Query,
    responses: {
      200: {
        description: 'A page of limit entries; pass `next_cursor` as `cursor` for the next one',
        schema: z.object({ data: z.array(LimitEntrySchema), next_cursor: z.string().nullable() }),
      },
    },
    handler: async ({ principal, query, config, deps }) => {
      const { limit, cursor, ...filters } = query;
      const entries = await reportLimits(deps.stores, principal.orgId, principalScopes(principal), filters, config.limits.leaseTtlSeconds);
      const filtered = Object.values(filters).some((v) => v !== undefined);
      const scope = `${principal.orgId}:${JSON.stringify(filters)}`;
      return { status: 200, body: limitEntriesPage(deps.purposeKeys, scope, filtered ? entries : condensedLimitEntries(entries), limit, cursor) };
    },
  }),
];
