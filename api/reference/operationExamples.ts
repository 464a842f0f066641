import type { OperationName } from '../../core/limits/limitTable';
import { encodeListCursor } from '../../core/pageCursor';
import { fundingRefusal } from '../../core/credits/credits';
import { notFound, type Problem, type ProblemCode } from '../../core/problems';
import { quotaRefusal } from '../../core/talent/quotas';
import { REFUSAL_TEXT } from '../../core/outbound/destinationPolicy';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

/** Example cursors are signed like real ones, under a fixed key: their shape is real, their MAC opens nothing. */
function exampleCursorKey(): PurposeKeys {
  return new PurposeKeys(Buffer.alloc(32));
}

/**
 * The reference's examples: one realistic request body and one answer per success status of
 * every /v1 operation, with ids of the service's own shapes (`org_…`, `job_…`, `kf_…`) and
 * amounts as the price list makes them. test/unit/openApiDocument.test.ts parses each one with
 * the route's own schema, so an example cannot drift from what the service accepts and answers.
 */
export interface OperationExample {
  /** A value of each path parameter. */
  params?: Record<string, string>;
  /** A value of each query parameter. */
  query?: Record<string, string>;
  /** The query parameters the request sample sends, so its answer is the one shown (default: all but `cursor`). */
  sampled?: string[];
  request?: unknown;
  responses: Record<number, unknown>;
  /** A request the route's own schemas refuse: the reference's 422 example is what they say of it. */
  invalid?: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown };
  /** The problem the operation itself answers with a code, as the code raising it words it (a detail, or the whole problem). */
  problems?: Partial<Record<ProblemCode, string | Problem>>;
}

const ORG = 'org_5kQ2vN8xR3tLm7WbY4cH9d';
const WORKSPACE = 'ws_8Jf3nT6qW1zK4pX7vB2mLs';
const APPLICATION = 'app_3Rk9mW2xT7bN5vQ8cL4hJd';
const FAMILY = 'kf_6Hn2pR8tY4wK9mX3bV7cQs';
const KEY = 'key_9Tb4mK7xQ2nW8vR5cJ3hLp';
const PERSON = 'per_7Xq2Lm9KbR4tWn8vYc3HdZ';
const PERSON_2 = 'per_2Bn8Wq5Rt3Ym7Kx9Lc4VdP';
const SEARCH = 'srch_4Wm9Kq2Xb7Rt3Ln8Vc5YhD';
const JOB = 'job_8Kd3Rm7Xq2Wt9Bn4Lv6YcP';
const ENDPOINT = 'we_3Nt8Kq5Xm2Rb9Wv4Lc7HdY';
const EVENT = 'evt_6Rq9Xm3Kt8Wb2Nv5Lc4YdH';
/** Delivery records are numbered in their workspace (core/webhooks/deliveryNumbering.ts). */
const DELIVERY = 'dlv_8Jf3nT6qW1zK4pX7vB2mLs_412';
const SECRET = 'whs_5Lm8Qx3Kt7Rb2Wn9Vc4YhD';
const RECEIPT = 'rcpt_9Wq4Xm7Kt2Rb8Nv3Lc5YdH';
/** Audit entries are numbered in their organization (core/audit/auditLog.ts). */
const AUDIT = (seq: number) => `aud_${ORG.slice('org_'.length)}_${seq}`;
const CREATED = '2026-11-25T14:03:11.482Z';
const COMPLETED = '2026-11-25T14:03:19.907Z';
const EXPIRES = '2026-12-02T14:03:19.907Z';

/** The 402 of an organization with `balance` credits asked for `price`, as the ledger words it. */
const unfunded = (price: number, balance = 0) =>
  fundingRefusal({ creditBalance: balance, budgetRemaining: null, familyBudgets: {}, agentSpend: null }, FAMILY, price)!;

const preview = {
  person_id: PERSON,
  name: 'Amara Okafor',
  headline: 'Senior backend engineer · payments infrastructure',
  title: 'Senior Backend Engineer',
  company: 'Northwind Payments',
  seniority: 'senior',
  years_experience: 9,
  location: { country: 'Germany', country_code: 'DE', region: 'Berlin', city: 'Berlin' },
  top_skills: ['Go', 'PostgreSQL', 'Kafka'],
  source: 'src_talentpool',
};

const runningJob = {
  job_id: JOB,
  type: 'contact_retrieval',
  status: 'running',
  fields: ['email', 'phone'],
  search_id: null,
  counts: { requested: 2, delivered: 0, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 2 },
  created_at: CREATED,
  completed_at: null,
  result_url: `/v1/job-results/${JOB}`,
  result_expires_at: null,
};

const completedJob = {
  ...runningJob,
  status: 'completed',
  counts: { requested: 2, delivered: 1, not_found: 1, failed: 0, reused: 0, cancelled: 0, pending: 0 },
  completed_at: COMPLETED,
  result_expires_at: EXPIRES,
};

const endpoint = {
  endpoint_id: ENDPOINT,
  url: 'https://hooks.example.com/talent',
  state: 'active',
  created_at: CREATED,
  updated_at: CREATED,
};

const delivery = {
  delivery_id: DELIVERY,
  event_id: EVENT,
  endpoint_id: ENDPOINT,
  job_id: JOB,
  attempt: 1,
  replay: 0,
  status: 'succeeded',
  response_status: 200,
  error_code: null,
  duration_ms: 142,
  scheduled_at: COMPLETED,
  attempted_at: '2026-11-25T14:03:20.051Z',
  next_attempt_at: null,
};

export const OPERATION_EXAMPLES: Record<OperationName, OperationExample> = {
  whoami: {
    responses: {
      200: {
        workspace_id: WORKSPACE,
        org_root: ORG,
        application_id: APPLICATION,
        audience: 'developer-api',
        scopes: ['candidates.search', 'jobs.v1:read', 'jobs.v1:write', 'profiles.v1:unlock'],
        key_id: KEY,
      },
    },
  },
  'search.sources': {
    responses: {
      200: {
        data: [
          {
            source_id: 'src_talentpool',
            name: 'Talent pool',
            description: 'The built-in pool of professional profiles.',
            covers: ['profiles', 'positions', 'skills', 'education', 'languages', 'locations'],
            built_in: true,
          },
        ],
      },
    },
  },
  'candidates.search': {
    invalid: { body: { query: 'backend engineer', page_size: 500 } },
    problems: {
      insufficient_credits: unfunded(1),
      preview_quota_exceeded: quotaRefusal('previews', 5000).detail,
      distinct_query_cap: quotaRefusal('queries', 300).detail,
    },
    request: { query: 'backend engineer payments', filters: { locations: ['Berlin'], seniority: ['senior', 'lead'] }, page_size: 20 },
    responses: {
      200: {
        search_id: SEARCH,
        data: [preview],
        next_cursor:
          'eyJ2IjoxLCJvcmciOiJvcmdfNWtRMnZOOHhSM3RMbTdXYlk0Y0g5ZCIsInNlYXJjaCI6InNyY2hfNFdtOUtxMlhiN1J0M0xuOFZjNVloRCIsIm9mZnNldCI6MjAsImlhdCI6MTc2NDA3OTM5MX0.Qm9yZ2VkLXNpZ25hdHVyZS1leGFtcGxlLW9ubHktMDAw',
        total_estimate: 137,
        credits_charged: 1,
        receipt_id: RECEIPT,
      },
    },
  },
  'profiles.unlock': {
    invalid: { body: { person_id: 42 } },
    problems: {
      insufficient_credits: unfunded(5, 3),
      not_found: notFound('person').detail,
      delivery_quota_exceeded: quotaRefusal('deliveries', 2000).detail,
    },
    request: { person_id: PERSON },
    responses: {
      200: {
        profile: {
          person_id: PERSON,
          name: 'Amara Okafor',
          first_name: 'Amara',
          last_name: 'Okafor',
          headline: 'Senior backend engineer · payments infrastructure',
          title: 'Senior Backend Engineer',
          company: 'Northwind Payments',
          seniority: 'senior',
          years_experience: 9,
          skills: ['Go', 'PostgreSQL', 'Kafka', 'Kubernetes'],
          languages: ['English', 'German'],
          location: { country: 'Germany', country_code: 'DE', region: 'Berlin', city: 'Berlin' },
          positions: [
            { title: 'Senior Backend Engineer', company: 'Northwind Payments', start: '2021-03', end: null, current: true },
            { title: 'Backend Engineer', company: 'Contoso Bank', start: '2017-09', end: '2021-02', current: false },
          ],
          education: [{ school: 'TU Berlin', degree: 'MSc', field: 'Computer Science', end_year: 2017 }],
          profile_url: 'https://profiles.example.com/amara-okafor',
          source: 'src_talentpool',
        },
        already_unlocked: false,
        credits_charged: 5,
        receipt_id: RECEIPT,
      },
    },
  },
  'person_matches.create': {
    invalid: { body: { company: 'Northwind Payments', min_confidence: 2 } },
    problems: { insufficient_credits: unfunded(1) },
    request: { email: 'amara.okafor@example.com', min_confidence: 0.8, limit: 5 },
    responses: {
      200: { data: [{ person_id: PERSON, confidence: 0.99, matched_on: ['email'] }], credits_charged: 1, receipt_id: RECEIPT, no_match: null },
    },
  },
  'contact_retrieval_jobs.create': {
    invalid: { body: { person_ids: [], fields: ['email'] } },
    problems: {
      insufficient_credits: unfunded(1),
      contact_job_concurrency_cap: 'Two contact-retrieval jobs are already running for this organization; retry when one finishes.',
    },
    request: { person_ids: [PERSON, PERSON_2], fields: ['email', 'phone'] },
    responses: { 202: runningJob },
  },
  'contact_retrieval_jobs.batch_create': {
    invalid: { body: { search_id: SEARCH, limit: 20000, fields: ['email'] } },
    problems: {
      insufficient_credits: unfunded(1),
      not_found: notFound('search').detail,
    },
    request: { search_id: SEARCH, limit: 100, fields: ['email'] },
    responses: {
      202: {
        ...runningJob,
        fields: ['email'],
        search_id: SEARCH,
        counts: { requested: 100, delivered: 0, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 100 },
      },
    },
  },
  'contact_retrieval_jobs.list': {
    query: { status: 'completed', limit: '20', cursor: encodeListCursor(exampleCursorKey(), `jobs:${WORKSPACE}:completed`, { n: 41 }) },
    invalid: { query: { status: 'finished' } },
    responses: { 200: { data: [completedJob], next_cursor: null } },
  },
  'contact_retrieval_jobs.get': {
    params: { id: JOB },
    invalid: { params: { id: 'j'.repeat(300) } },
    problems: { not_found: notFound('contact-retrieval job').detail },
    responses: { 200: completedJob },
  },
  'contact_retrieval_jobs.cancel': {
    params: { id: JOB },
    invalid: { params: { id: 'c'.repeat(300) } },
    problems: {
      not_found: notFound('contact-retrieval job').detail,
      invalid_state_transition: 'The job already finished with status `completed`; only a running job can be cancelled.',
    },
    responses: {
      202: {
        ...runningJob,
        status: 'cancelled',
        counts: { requested: 2, delivered: 1, not_found: 0, failed: 0, reused: 0, cancelled: 1, pending: 0 },
        completed_at: COMPLETED,
        result_expires_at: EXPIRES,
      },
    },
  },
  'job_results.get': {
    params: { job_id: JOB },
    query: { limit: '100', cursor: encodeListCursor(exampleCursorKey(), `result:${JOB}`, { seq: 100 }) },
    invalid: { params: { job_id: JOB }, query: { limit: '0' } },
    problems: {
      not_found: notFound('contact-retrieval job').detail,
      result_set_expired: `This job result expired at ${EXPIRES}.`,
      result_gone: 'This job result is no longer retained.',
    },
    responses: {
      200: {
        job_id: JOB,
        status: 'completed',
        counts: completedJob.counts,
        created_at: CREATED,
        completed_at: COMPLETED,
        result_expires_at: EXPIRES,
        items: [
          {
            person_id: PERSON,
            outcome: 'delivered',
            contacts: { emails: ['amara.okafor@example.com'], phones: ['+49 30 901820'] },
            receipt_id: RECEIPT,
            reason: null,
          },
          { person_id: PERSON_2, outcome: 'not_found', contacts: { emails: [], phones: [] }, receipt_id: null, reason: null },
        ],
        next_cursor: null,
      },
    },
  },
  'webhook_endpoints.create': {
    invalid: { body: { url: 'hooks.example.com/talent' } },
    problems: {
      webhook_url_not_allowed: REFUSAL_TEXT.address_not_allowed,
      endpoint_limit_reached: 'This workspace already has an active webhook endpoint; disable or delete it first.',
    },
    request: { url: 'https://hooks.example.com/talent' },
    responses: { 201: { endpoint, secret_id: SECRET, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } },
  },
  'webhook_endpoints.list': {
    query: { limit: '20', cursor: encodeListCursor(exampleCursorKey(), `webhook_endpoints:${WORKSPACE}`, { n: 3 }) },
    invalid: { query: { limit: '500' } },
    responses: { 200: { data: [endpoint], next_cursor: null } },
  },
  'webhook_endpoints.get': {
    params: { id: ENDPOINT },
    invalid: { params: { id: '' } },
    problems: { not_found: notFound('webhook endpoint').detail },
    responses: { 200: endpoint },
  },
  'webhook_endpoints.update': {
    params: { id: ENDPOINT },
    invalid: { params: { id: ENDPOINT }, body: { state: 'retired' } },
    problems: {
      not_found: notFound('webhook endpoint').detail,
      endpoint_retired: 'A retired webhook endpoint cannot be changed.',
      webhook_url_not_allowed: REFUSAL_TEXT.not_https,
    },
    request: { state: 'disabled' },
    responses: { 200: { ...endpoint, state: 'disabled', updated_at: COMPLETED } },
  },
  'webhook_endpoints.delete': {
    params: { id: ENDPOINT },
    invalid: { params: { id: 'x'.repeat(200) } },
    problems: { not_found: notFound('webhook endpoint').detail },
    responses: { 200: { ...endpoint, state: 'retired', updated_at: COMPLETED } },
  },
  'webhook_endpoints.rotate_secret': {
    params: { id: ENDPOINT },
    invalid: { params: { id: 'we_' + 'x'.repeat(100) } },
    problems: {
      not_found: notFound('webhook endpoint').detail,
      rotation_in_progress: 'The previous secret is still inside its 24-hour overlap; rotate again after it ends.',
    },
    responses: {
      200: {
        secret_id: 'whs_8Rt3Xm6Kq9Wb2Nv4Lc7YdP',
        secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
        previous_secret_expires_at: '2026-11-26T14:03:11.482Z',
      },
    },
  },
  'webhook_deliveries.list': {
    query: {
      endpoint_id: ENDPOINT,
      event_id: EVENT,
      status: 'dead_lettered',
      limit: '20',
      cursor: encodeListCursor(exampleCursorKey(), 'webhook_deliveries:n:', { below: 411 }),
    },
    sampled: ['endpoint_id', 'limit'],
    invalid: { query: { status: 'delivered' } },
    responses: { 200: { data: [delivery], next_cursor: null } },
  },
  'webhook_deliveries.get': {
    params: { id: DELIVERY },
    invalid: { params: { id: 'd'.repeat(300) } },
    problems: { not_found: notFound('webhook delivery').detail },
    responses: { 200: delivery },
  },
  'webhook_deliveries.replay': {
    params: { id: DELIVERY },
    invalid: { params: { id: 'r'.repeat(300) } },
    problems: {
      not_found: notFound('webhook delivery').detail,
      replay_not_allowed: 'Only a dead-lettered delivery can be replayed.',
      webhook_replay_cap: 'More than 10 replays for this endpoint in the last hour.',
    },
    responses: { 202: { event_id: EVENT, replay: 1, endpoint_id: ENDPOINT, status: 'replaying' } },
  },
  'audit_events.list': {
    query: {
      action: 'webhook_endpoint.updated',
      actor: `key:${KEY}`,
      limit: '20',
      cursor: encodeListCursor(exampleCursorKey(), `audit-events:webhook_endpoint.updated:key:${KEY}`, { below: 1285 }),
    },
    sampled: ['limit'],
    invalid: { query: { limit: 'twenty' } },
    responses: {
      200: {
        data: [
          {
            event_id: AUDIT(1287),
            time: COMPLETED,
            actor: `key:${KEY}`,
            action: 'webhook_endpoint.updated',
            target: ENDPOINT,
            before: { endpoint_id: ENDPOINT, url: 'https://hooks.example.com/talent', state: 'active' },
            after: { endpoint_id: ENDPOINT, url: 'https://hooks.example.com/talent', state: 'disabled' },
            client_address: '203.0.113.24',
          },
          {
            event_id: AUDIT(1286),
            time: CREATED,
            actor: 'operator',
            action: 'credits.granted',
            target: ORG,
            before: null,
            after: { amount: 5000, balance: 12500 },
            client_address: null,
          },
        ],
        next_cursor: encodeListCursor(exampleCursorKey(), 'audit-events::', { below: 1285 }),
      },
    },
  },
  'usage.get': {
    query: { from: '2026-11-24', to: '2026-11-26T00:00:00Z', granularity: 'day', operation: 'candidates.search', group_by: 'application' },
    sampled: ['from', 'to', 'granularity'],
    invalid: { query: { from: '2026-11-27T09:30' } },
    responses: {
      200: {
        data: [
          {
            start: '2026-11-24T00:00:00.000Z',
            operation: 'candidates.search',
            requests: { success: 412, client_error: 3, rate_limited: 7, server_error: 0 },
            credits: 412,
            application: null,
          },
          {
            start: '2026-11-24T00:00:00.000Z',
            operation: 'contact_retrieval_jobs.create',
            requests: { success: 2, client_error: 0, rate_limited: 0, server_error: 0 },
            credits: 180,
            application: null,
          },
          {
            start: '2026-11-25T00:00:00.000Z',
            operation: 'profiles.unlock',
            requests: { success: 25, client_error: 1, rate_limited: 0, server_error: 0 },
            credits: 125,
            application: null,
          },
        ],
      },
    },
  },
  'operational_limits.get': {
    query: {
      operation: 'candidates.search',
      scope: 'key_family',
      application_id: APPLICATION,
      family_id: FAMILY,
      key_id: KEY,
      limit: '20',
      cursor: encodeListCursor(exampleCursorKey(), `operational-limits:${ORG}:{}`, { at: 20 }),
    },
    sampled: ['operation'],
    invalid: { query: { scope: 'team' } },
    responses: {
      200: {
        data: [
          {
            operation: 'candidates.search',
            scope: { type: 'organization', id: ORG },
            status: 'active',
            source: 'inherited',
            requests_per_second: 25,
            requests_per_minute: null,
            max_concurrency: 25,
            lease_ttl_seconds: 60,
            standard_requests_per_minute: 1500,
            maximum_requests_per_minute: 1499,
            suggested_requests_per_minute: 1200,
            inherited_ceiling_ref: null,
          },
          {
            operation: 'candidates.search',
            scope: { type: 'key_family', id: FAMILY },
            status: 'active',
            source: 'override',
            requests_per_second: 25,
            requests_per_minute: 600,
            max_concurrency: 25,
            lease_ttl_seconds: 60,
            standard_requests_per_minute: 1500,
            maximum_requests_per_minute: 1499,
            suggested_requests_per_minute: 1200,
            inherited_ceiling_ref: `organization:${ORG}/candidates.search`,
          },
        ],
        next_cursor: null,
      },
    },
  },
};
