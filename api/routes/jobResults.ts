import { z } from 'zod';
import { readJobResult } from '../../core/jobs/jobResults';
import { FAILURE_REASONS, FINAL_JOB_STATUSES, PERSON_OUTCOMES } from '../../core/jobs/jobTypes';
import { PERMISSIONS } from '../../core/keys/permissions';
import { cursorParameter } from './cursorParameter';
import { defineRoute } from '../routeSpec';
import { JobCountsSchema } from './contactRetrievalJobs';

const ResultSchema = z.object({
  job_id: z.string(),
  status: z.enum(['running', ...FINAL_JOB_STATUSES]),
  counts: JobCountsSchema,
  created_at: z.string(),
  completed_at: z.string().nullable(),
  result_expires_at: z.string().nullable().describe('7 days after completion; null while running or when no person got an answer'),
  items: z.array(
    z.object({
      person_id: z.string(),
      outcome: z.enum(PERSON_OUTCOMES).describe('`pending` only while the job runs'),
      contacts: z.object({ emails: z.array(z.string()), phones: z.array(z.string()) }).describe('empty unless delivered or reused'),
      receipt_id: z.string().nullable().describe('the charge of a delivered record'),
      reason: z.enum(FAILURE_REASONS).nullable().describe('why the person failed'),
    }),
  ),
  next_cursor: z.string().nullable(),
});

export const jobResultRoutes = [
  defineRoute({
    operation: 'job_results.get',
    method: 'GET',
    path: '/v1/job-results/:job_id',
    tag: 'Contact-retrieval jobs',
    summary: 'Read a job result, in pages of people',
    description:
      'The contract behind the `job.completed` webhook. Retained 7 days after completion (409 `result_set_expired` afterwards); purged 30 days after completion (410 `result_gone`).',
    permission: PERMISSIONS.jobsRead,
    params: z.object({ job_id: z.string().min(1).max(128) }),
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        cursor: cursorParameter('`next_cursor` of the previous page'),
      })
      .strict(),
    responses: {
      200: { description: 'A page of the result', schema: ResultSchema },
      404: { description: 'No such job for this key' },
      409: { description: '`result_set_expired`: past `result_expires_at`' },
      410: { description: '`result_gone`: the result was purged' },
    },
    handler: async ({ principal, params, query, deps }) => ({
      status: 200,
      body: await readJobResult(deps.stores, deps.purposeKeys, principal, params.job_id, query, new Date(deps.now())),
    }),
  }),
];
