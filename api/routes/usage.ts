import { z } from 'zod';
import { PERMISSIONS } from '../../core/keys/permissions';
import { OPERATIONS } from '../../core/limits/limitTable';
import { DAY_MS, HOUR_MS } from '../../core/usage/usageBuckets';
import { usageSeries, type Granularity } from '../../core/usage/usageSeries';
import { applicationNamesOfOrg } from '../../core/oauth/consentGrants';
import { defineRoute } from '../routeSpec';
import { instantParameter } from './instantParameter';

/** The longest range each granularity answers: a week of hours (each hour a row to read), 400 days of days (a row a month). */
export const USAGE_MAX_RANGE_MS: Record<Granularity, number> = { hour: 7 * DAY_MS, day: 400 * DAY_MS };
/** The range when `from` is absent: the 24 hours or 30 days before `to`. */
export const USAGE_DEFAULT_RANGE_MS: Record<Granularity, number> = { hour: 24 * HOUR_MS, day: 30 * DAY_MS };

const Count = z.number().int().min(0);

export const UsagePointSchema = z.object({
  start: z.string().describe("the bucket's start, ISO 8601 UTC (a whole hour or a UTC midnight)"),
  operation: z.enum(OPERATIONS),
  requests: z
    .object({
      success: Count.describe('2xx answers'),
      client_error: Count.describe('4xx answers other than 429'),
      rate_limited: Count.describe('429 answers'),
      server_error: Count.describe('5xx answers'),
    })
    .describe('requests of this operation in the bucket, by outcome'),
  credits: Count.describe('credits charged in the bucket by this operation, as the ledger records them'),
  application: z
    .object({
      id: z.string().describe("the person's grant to the application (`cg_…`)"),
      name: z.string().nullable().describe('the name the application registered with; null once the person revoked it'),
    })
    .nullable()
    .optional()
    .describe(
      "only with `group_by=application`: the connected AI application (a person's MCP client signed in through the browser) that made these calls; null for calls of API keys and M2M clients",
    ),
});

const Query = z
  .object({
    from: instantParameter(
      'start of the range: an ISO 8601 date (its UTC midnight) or date-time with an offset, widened to its bucket; default: 24 hours (hour) or 30 days (day) before `to`; at most 7 days (hour) or 400 days (day) before it',
    ),
    to: instantParameter('end of the range (exclusive): an ISO 8601 date (its UTC midnight) or date-time with an offset, widened to its bucket; default: now'),
    granularity: z.enum(['day', 'hour']).default('day').describe('bucket size, in UTC'),
    operation: z.enum(OPERATIONS).optional().describe("only this operation's figures"),
    group_by: z
      .enum(['application'])
      .optional()
      .describe('`application`: split each bucket and operation by the connected AI application that spent it (each point then carries `application`)'),
  })
  .superRefine((q, ctx) => {
    const to = q.to ? q.to.getTime() : Date.now();
    const from = q.from ? q.from.getTime() : to - USAGE_DEFAULT_RANGE_MS[q.granularity];
    if (from >= to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before `to`' });
    else if (to - from > USAGE_MAX_RANGE_MS[q.granularity]) {
      ctx.addIssue({
        code: 'custom',
        path: ['from'],
        message: `the range is at most ${USAGE_MAX_RANGE_MS[q.granularity] / DAY_MS} days with granularity ${q.granularity}`,
      });
    }
  });

export const usageRoutes = [
  defineRoute({
    operation: 'usage.get',
    method: 'GET',
    path: '/v1/usage',
    tag: 'Usage',
    permission: PERMISSIONS.usageRead,
    summary: "The organization's requests and credits per hour or day and operation",
    description:
      "Per UTC bucket (`granularity`: `hour` or `day`) and operation: requests by outcome (2xx `success`, 4xx `client_error` other than 429, 429 `rate_limited`, 5xx `server_error`) and `credits` charged, including the credits contact-retrieval jobs charge as they run. The figures come from counters kept as the work happens; `credits` over a range agrees with the ledger. Buckets with nothing counted are left out. Ranges: up to 7 days by the hour, 400 days by the day; hour buckets are kept 100 days. Counts reach this answer within about a minute (each process writes a minute once it has ended). With `group_by=application`, the tool-server calls of each connected AI application (a person's MCP client, by its grant) are answered apart from the rest.",
    query: Query,
    responses: { 200: { description: 'Usage per bucket and operation, oldest first', schema: z.object({ data: z.array(UsagePointSchema) }) } },
    handler: async ({ principal, query, deps }) => {
      const to = query.to ?? new Date(deps.now());
      const from = query.from ?? new Date(to.getTime() - USAGE_DEFAULT_RANGE_MS[query.granularity]);
      const byApplication = query.group_by === 'application';
      const series = await usageSeries(
        deps.stores,
        { orgId: principal.orgId, from, to, granularity: query.granularity, operation: query.operation, byApplication },
        deps.now(),
      );
      if (!byApplication) return { status: 200, body: { data: series } };
      const names = await applicationNamesOfOrg(deps.stores, principal.orgId);
      const data = series.map(({ application, ...point }) => ({
        ...point,
        application: application ? { id: application, name: names.get(application) ?? null } : null,
      }));
      return { status: 200, body: { data } };
    },
  }),
];
