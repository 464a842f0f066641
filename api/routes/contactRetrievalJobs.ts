import { z } from 'zod';
import {
  cancelContactRetrievalJob,
  createBatchContactRetrievalJob,
  createContactRetrievalJob,
  getContactRetrievalJob,
} from '../../core/jobs/contactRetrievalJobs';
import { listContactRetrievalJobs } from '../../core/jobs/jobList';
import { MAX_BATCH_PEOPLE, MAX_PERSON_IDS } from '../../core/jobs/jobRules';
import { CONTACT_FIELDS } from '../../core/contactProvider/contactProvider';
import { COUNT_KEYS, FINAL_JOB_STATUSES } from '../../core/jobs/jobTypes';
import { PERMISSIONS } from '../../core/keys/permissions';
import { cursorParameter } from './cursorParameter';
import { defineRoute, type ResponseDoc } from '../routeSpec';

const TAG = 'Contact-retrieval jobs';

const Fields = z
  .array(z.enum(CONTACT_FIELDS))
  .min(1)
  .refine((f) => new Set(f).size === f.length, 'fields must not repeat')
  .meta({ uniqueItems: true })
  .default(['email', 'phone'])
  .describe('contact fields to retrieve; default both');

export const JobCountsSchema = z
  .object(Object.fromEntries(COUNT_KEYS.map((k) => [k, z.number().int().min(0)])) as Record<(typeof COUNT_KEYS)[number], z.ZodNumber>)
  .describe('requested = delivered + not_found + failed + reused + cancelled + pending, always');

export const JobSchema = z.object({
  job_id: z.string(),
  type: z.literal('contact_retrieval'),
  status: z.enum(['running', ...FINAL_JOB_STATUSES]),
  fields: z.array(z.enum(CONTACT_FIELDS)),
  search_id: z.string().nullable().describe('the search a batch job was made from; null otherwise'),
  counts: JobCountsSchema,
  created_at: z.string(),
  completed_at: z.string().nullable(),
  result_url: z.string().describe('relative path of the result; call it with your own key'),
  result_expires_at: z
    .string()
    .nullable()
    .describe('when the result stops being readable (7 days after completion); null while running or when the job carries no result'),
});

const JobPageSchema = z.object({ data: z.array(JobSchema), next_cursor: z.string().nullable() });

const CreateBody = z
  .object({
    person_ids: z
      .array(z.string().regex(/^per_[0-9A-Za-z]{8,64}$/, 'must be a person id (per_…)'))
      .min(1)
      .max(MAX_PERSON_IDS)
      .describe(`1 to ${MAX_PERSON_IDS} person ids; repeats are retrieved once`),
    fields: Fields,
  })
  .strict();

const BatchBody = z
  .object({
    search_id: z
      .string()
      .regex(/^srch_[0-9A-Za-z]{8,64}$/, 'must be a search id (srch_…)')
      .describe('an earlier search of this organization'),
    limit: z.number().int().min(1).max(MAX_BATCH_PEOPLE).default(100).describe("how many of the search's people, in result order"),
    fields: Fields,
  })
  .strict();

const IdParams = z.object({ id: z.string().min(1).max(128) });

const ListQuery = z
  .object({
    status: z.enum(['running', ...FINAL_JOB_STATUSES]).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: cursorParameter('`next_cursor` of the previous page'),
  })
  .strict();

const errors = {
  402: {
    description:
      'The organization cannot fund one contact record (insufficient_credits with `required_credits` 1, family_budget_exhausted, organization_budget_exhausted), checked before any person or search is looked up; nothing was created',
  },
  429: {
    description:
      '`contact_job_concurrency_cap`: two jobs already run for this organization (Retry-After: 30); ' +
      "`contact_job_daily_cap`: the organization's jobs for this UTC day are used up (default 1,000; Retry-After: until 00:00 UTC); " +
      '`delivery_quota_exceeded`: nobody of the job could be delivered today (Retry-After: 1; `limit` names the quota). ' +
      'Nothing was created or charged',
  },
};

const deliveryQuotaNote =
  ' The daily delivery quota (unique people delivered per organization per UTC day) is reserved for the whole job when it is accepted: ' +
  'people already delivered today are free, the others are covered while the quota lasts, and the people beyond it fail with reason `delivery_quota_exceeded` ' +
  '(free), as people beyond the credits fail with `insufficient_credits`. What the job does not use is given back when it finishes; its deliveries count in the day it was accepted.';

const accepted: Record<number, ResponseDoc> = {
  202: {
    description:
      'Accepted: the job runs; poll it, wait for the `job.completed` webhook, then read its result. Each delivered record costs 1 credit; reused (retrieved by this organization within 30 days, including by another of its jobs running at the same time: an organization pays once per person and field), not_found and failed people are free',
    schema: JobSchema,
    links: {
      GetJob: { operation: 'contact_retrieval_jobs.get', description: 'The job, to poll its status', parameters: { id: '$response.body#/job_id' } },
      GetJobResult: { operation: 'job_results.get', description: "The job's result once it finished", parameters: { job_id: '$response.body#/job_id' } },
      CancelJob: { operation: 'contact_retrieval_jobs.cancel', description: 'Stop the job', parameters: { id: '$response.body#/job_id' } },
    },
  },
};

export const contactRetrievalJobRoutes = [
  defineRoute({
    operation: 'contact_retrieval_jobs.create',
    method: 'POST',
    path: '/v1/contact-retrieval-jobs',
    tag: TAG,
    summary: 'Retrieve contacts for up to 100 people',
    description:
      'At most two jobs run per organization. A job not finished within 24 h becomes `expired`. ' +
      'Every person id must be one this organization can unlock: an id that does not exist and one of a source the organization has not enabled ' +
      "are both 422 `validation_failed`, naming them in `unknown_person_ids` (the same answer, as unlock's 404 is the same for both)." +
      deliveryQuotaNote,
    permission: PERMISSIONS.jobsWrite,
    idempotent: true,
    // Charged as its chunks are paid, never at acceptance: its answers say 0 (and the balance).
    paid: true,
    body: CreateBody,
    responses: {
      ...accepted,
      ...errors,
      422: { description: '`validation_failed`; unknown (or not available) person ids are listed in `unknown_person_ids`' },
    },
    handler: async ({ principal, body, deps }) => ({
      status: 202,
      body: await createContactRetrievalJob(deps, { principal, personIds: body.person_ids, fields: body.fields }),
    }),
  }),
  defineRoute({
    operation: 'contact_retrieval_jobs.batch_create',
    method: 'POST',
    path: '/v1/contact-retrieval-jobs/batch',
    tag: TAG,
    summary: 'Retrieve contacts for the people of an earlier search',
    description:
      'A job over the first `limit` people of a search made by this organization; an absent or foreign search is 404. ' +
      'People of the search this organization can no longer see (their source was disabled since) are answered `not_found`, free; ' +
      'when that is everyone, 422. Sources are checked again for every chunk while the job runs.' +
      deliveryQuotaNote,
    permission: PERMISSIONS.jobsWrite,
    idempotent: true,
    // Charged as its chunks are paid, never at acceptance: its answers say 0 (and the balance).
    paid: true,
    body: BatchBody,
    responses: { ...accepted, ...errors, 404: { description: 'No such search for this organization' } },
    handler: async ({ principal, body, deps }) => ({
      status: 202,
      body: await createBatchContactRetrievalJob(deps, { principal, searchId: body.search_id, limit: body.limit, fields: body.fields }),
    }),
  }),
  defineRoute({
    operation: 'contact_retrieval_jobs.list',
    method: 'GET',
    path: '/v1/contact-retrieval-jobs',
    tag: TAG,
    summary: 'List jobs, newest first',
    permission: PERMISSIONS.jobsRead,
    query: ListQuery,
    responses: { 200: { description: 'A page of jobs; pass `next_cursor` as `cursor` for the next one', schema: JobPageSchema } },
    handler: async ({ principal, query, deps }) => ({
      status: 200,
      body: await listContactRetrievalJobs(deps.stores, deps.purposeKeys, principal, query),
    }),
  }),
  defineRoute({
    operation: 'contact_retrieval_jobs.get',
    method: 'GET',
    path: '/v1/contact-retrieval-jobs/:id',
    tag: TAG,
    summary: 'Read a job and its counts',
    permission: PERMISSIONS.jobsRead,
    params: IdParams,
    responses: { 200: { description: 'The job', schema: JobSchema }, 404: { description: 'No such job for this key' } },
    handler: async ({ principal, params, deps }) => ({ status: 200, body: await getContactRetrievalJob(deps.stores, principal, params.id) }),
  }),
  defineRoute({
    operation: 'contact_retrieval_jobs.cancel',
    method: 'POST',
    path: '/v1/contact-retrieval-jobs/:id/cancel',
    tag: TAG,
    summary: 'Cancel a running job',
    description:
      'People not yet processed become `cancelled`; the job reports `cancelled` once it stops. Records delivered before the cancel stay delivered and charged.',
    permission: PERMISSIONS.jobsWrite,
    params: IdParams,
    responses: {
      202: { description: 'Cancel requested; the job as it is now', schema: JobSchema },
      404: { description: 'No such job for this key' },
      409: { description: '`invalid_state_transition`: the job already finished' },
    },
    handler: async ({ principal, params, deps }) => ({ status: 202, body: await cancelContactRetrievalJob(deps, principal, params.id) }),
    audit: {
      change: ({ params }, result) => ({
        action: 'job.cancelled',
        target: params.id,
        after: { job_id: params.id, status: (result.body as { status?: string }).status ?? null },
      }),
    },
  }),
];
