import { PROBLEM_CODES, PROBLEM_TYPE_PREFIX, type ProblemCode } from '../../core/problems';
import type { RouteSpec } from '../routeSpec';

/**
 * Which problem codes each /v1 operation can answer, by status, so the reference (and the
 * clients generated from it) can name them. Three sources: the chain every /v1 request passes
 * (authentication, admission, the error middleware), what the route declaration implies
 * (permission, body, parameters, idempotency, cursor), and the codes the route's own response
 * descriptions name.
 */
const EVERY_V1_REQUEST: ProblemCode[] = ['malformed_authorization', 'missing_api_key', 'invalid_api_key', 'rate_limited', 'internal_error'];
const WITH_BODY: ProblemCode[] = ['malformed_body', 'body_too_large', 'unsupported_media_type', 'validation_failed'];
const IDEMPOTENT: ProblemCode[] = ['invalid_idempotency_key', 'idempotency_key_reused', 'idempotency_in_progress'];
/** Paid operations reserve credits, whose ledger answers 503 when it cannot be reached in time. */
const PAID: ProblemCode[] = ['dependency_unavailable'];

const ALL_CODES = Object.keys(PROBLEM_CODES) as ProblemCode[];

/** Codes named in a declared response's description, or the one code of its status when it names none. */
function namedCodes(status: number, description: string): ProblemCode[] {
  const named = ALL_CODES.filter((code) => new RegExp(`\\b${code}\\b`).test(description));
  if (named.length > 0) return named;
  const ofStatus = ALL_CODES.filter((code) => PROBLEM_CODES[code].status === status);
  return ofStatus.length === 1 ? ofStatus : [];
}

function hasQueryField(spec: RouteSpec, field: string): boolean {
  const shape = (spec.query as unknown as { shape?: Record<string, unknown> } | undefined)?.shape;
  return Boolean(shape && field in shape);
}

export function problemCodesOf(spec: RouteSpec): ProblemCode[] {
  const codes = new Set<ProblemCode>(EVERY_V1_REQUEST);
  if (spec.permission) codes.add('insufficient_scope');
  if (spec.body) WITH_BODY.forEach((c) => codes.add(c));
  if (spec.query || spec.params) codes.add('validation_failed');
  if (spec.idempotent) IDEMPOTENT.forEach((c) => codes.add(c));
  if (hasQueryField(spec, 'cursor')) codes.add('invalid_cursor');
  if (spec.responses[402]) PAID.forEach((c) => codes.add(c));
  for (const [status, doc] of Object.entries(spec.responses)) {
    if (Number(status) >= 400) namedCodes(Number(status), doc.description).forEach((c) => codes.add(c));
  }
  return ALL_CODES.filter((c) => codes.has(c));
}

/** What the service says for the codes an example shows most often; others show their title. */
const EXAMPLE_DETAILS: Partial<Record<ProblemCode, string>> = {
  invalid_cursor: 'The cursor is not one this list returned; start again without a cursor.',
  invalid_idempotency_key: 'Send an Idempotency-Key header of 8 to 128 characters: a letter or digit, then letters, digits, `.`, `_`, `:` or `-`.',
  malformed_authorization: 'Send your API key as `Authorization: Bearer <API_KEY>`.',
  insufficient_credits: 'The organization has 0 credits; this request needs at least 1.',
  insufficient_scope: 'This operation requires the `jobs.v1:write` permission.',
  not_found: 'No such resource.',
  idempotency_key_reused: 'This Idempotency-Key was used with a different request body.',
  cursor_expired: 'The cursor is no longer valid; start the search again.',
  validation_failed: 'person_ids: Too big: expected array to have <=100 items',
  webhook_url_not_allowed: 'The url does not resolve to a publicly routable address.',
  rate_limited: "The organization's request rate of 25 per second is used up for this second.",
  body_too_large: 'The body is larger than 65,536 bytes.',
  unsupported_media_type: 'Send the body as `Content-Type: application/json`.',
  internal_error: 'Something went wrong on our side; the request id identifies it in our logs.',
  dependency_unavailable: 'The credit ledger did not answer in time; nothing was charged. Retry after the Retry-After delay.',
};

const EXAMPLE_REQUEST_ID = 'req_4f2c9a1e7b3d4e5f8a6b0c1d2e3f4a5b';

/** A problem document of `code` as the service writes it. */
export function problemExample(code: ProblemCode): Record<string, unknown> {
  const { status, title } = PROBLEM_CODES[code];
  return {
    type: `${PROBLEM_TYPE_PREFIX}${code}`,
    title,
    status,
    detail: EXAMPLE_DETAILS[code] ?? `${title}.`,
    code,
    request_id: EXAMPLE_REQUEST_ID,
    instance: `urn:service:developer-api:request:${EXAMPLE_REQUEST_ID}`,
    ...(code === 'validation_failed' ? { errors: [{ field: 'person_ids', message: 'Too big: expected array to have <=100 items' }] } : {}),
  };
}

/**
 * An error response's description: each of its codes named once, first those the route's own
 * wording does not mention, then that wording.
 */
function describeCodes(codes: ProblemCode[], declared: string | undefined): string {
  const unmentioned = codes.filter((c) => !declared || !new RegExp(`\\b${c}\\b`).test(declared));
  const named = unmentioned.map((c) => `\`${c}\``).join(', ');
  if (!declared) return `${named}.`;
  return named ? `${named}; ${declared}` : declared;
}

/** Statuses whose answers tell the client when to come back. */
const RETRY_AFTER_STATUSES = new Set([409, 429, 503]);

/**
 * One response per error status: the problem schema with `code` narrowed to the codes that
 * status can carry for this operation, and the route's own wording when it declared one.
 */
export function problemResponses(spec: RouteSpec): Record<string, unknown> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of problemCodesOf(spec)) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    const declared = spec.responses[status]?.description;
    // The example shows the code the route itself names for this status, when it names one.
    const shown = codes.find((c) => declared && new RegExp(`\\b${c}\\b`).test(declared)) ?? codes[0];
    out[String(status)] = {
      description: describeCodes(codes, declared),
      ...(RETRY_AFTER_STATUSES.has(status) ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
      content: {
        'application/problem+json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { enum: codes } } }] },
          example: problemExample(shown),
        },
      },
    };
  }
  return out;
}
