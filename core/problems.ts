/**
 * The one error model: domain code throws a Problem; one middleware (api/middleware/problemDocuments)
 * turns it into an RFC 9457 document. `code` is the stable contract (SPEC 7.1, 7.3).
 */

export const PROBLEM_TYPE_PREFIX = 'urn:service:developer-api:problem:';

/** Every code the API can answer with, its HTTP status and its title. */
export const PROBLEM_CODES = {
  malformed_authorization: { status: 400, title: 'Malformed authorization' },
  invalid_idempotency_key: { status: 400, title: 'Invalid Idempotency-Key' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  malformed_body: { status: 400, title: 'Malformed request body' },
  malformed_request: { status: 400, title: 'Malformed request' },
  invalid_request_id: { status: 400, title: 'Invalid X-Request-Id' },
  missing_api_key: { status: 401, title: 'Missing API key' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  insufficient_credits: { status: 402, title: 'Insufficient credits' },
  family_budget_exhausted: { status: 402, title: 'Key family budget exhausted' },
  organization_budget_exhausted: { status: 402, title: 'Organization budget exhausted' },
  agent_allowance_exhausted: { status: 402, title: 'Daily allowance used up' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  origin_not_allowed: { status: 403, title: 'Origin not allowed' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  endpoint_limit_reached: { status: 409, title: 'Webhook endpoint limit reached' },
  result_set_expired: { status: 409, title: 'Result set expired' },
  idempotency_key_reused: { status: 409, title: 'Idempotency key reused' },
  idempotency_in_progress: { status: 409, title: 'Idempotent request in progress' },
  endpoint_retired: { status: 409, title: 'Webhook endpoint retired' },
  invalid_state_transition: { status: 409, title: 'Invalid state transition' },
  replay_not_allowed: { status: 409, title: 'Replay not allowed' },
  rotation_in_progress: { status: 409, title: 'Secret rotation already in progress' },
  last_admin: { status: 409, title: 'Last active admin' },
  cursor_expired: { status: 410, title: 'Cursor expired' },
  result_gone: { status: 410, title: 'Result no longer retained' },
  request_timeout: { status: 408, title: 'Request timeout' },
  body_too_large: { status: 413, title: 'Body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  webhook_url_not_allowed: { status: 422, title: 'Webhook destination not allowed' },
  rate_limited: { status: 429, title: 'Rate limited' },
  contact_job_concurrency_cap: { status: 429, title: 'Contact-retrieval job concurrency cap' },
  contact_job_daily_cap: { status: 429, title: 'Contact-retrieval daily job cap' },
  webhook_replay_cap: { status: 429, title: 'Webhook replay cap' },
  preview_quota_exceeded: { status: 429, title: 'Preview quota exceeded' },
  distinct_query_cap: { status: 429, title: 'Distinct query cap' },
  delivery_quota_exceeded: { status: 429, title: 'Delivery quota exceeded' },
  internal_error: { status: 500, title: 'Internal error' },
  dependency_unavailable: { status: 503, title: 'Dependency unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface FieldError {
  field: string;
  message: string;
}

export interface ProblemOptions {
  /** Response headers that belong to this problem, e.g. Retry-After. */
  headers?: Record<string, string>;
  /** Extra members of the document (e.g. `errors` for validation_failed). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

export class Problem extends Error {
  readonly status: number;
  readonly title: string;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    options: ProblemOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'Problem';
    this.status = PROBLEM_CODES[code].status;
    this.title = PROBLEM_CODES[code].title;
    this.headers = { ...(options.headers ?? {}) };
    this.extensions = options.extensions ?? {};
    if (this.status === 429) {
      this.headers['Cache-Control'] = 'private, no-store';
    }
  }

  get type(): string {
    return PROBLEM_TYPE_PREFIX + this.code;
  }
}

/** A 429 or 503 with its Retry-After (seconds, rounded up, at least 1). */
export function retryLater(code: ProblemCode, detail: string, retryAfterSeconds: number, extra: ProblemOptions = {}): Problem {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new Problem(code, detail, { ...extra, headers: { ...(extra.headers ?? {}), 'Retry-After': String(seconds) } });
}

export function validationFailed(errors: FieldError[], detail?: string): Problem {
  const summary = detail ?? errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new Problem('validation_failed', summary || 'The request body did not satisfy the operation contract.', {
    extensions: { errors },
  });
}

export function notFound(what = 'resource'): Problem {
  return new Problem('not_found', `The ${what} does not exist or is not available to this credential.`);
}
