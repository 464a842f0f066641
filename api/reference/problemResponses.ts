import { OPERATION_REQUESTS_PER_SECOND } from '../../core/limits/limitTable';
import { operationBlocked, operationRateUsedUp } from '../../core/limits/operationAdmission';
import { Problem, PROBLEM_CODES, PROBLEM_TYPE_PREFIX, type ProblemCode } from '../../core/problems';
import { permissionRequired } from '../operations/executeOperation';
import { parseWith } from '../operations/operationInput';
import type { RouteSpec } from '../routeSpec';
import type { OperationExample } from './operationExamples';

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

/**
 * What the service says for codes it words the same whatever the operation (the credential, the
 * request's transport, the Idempotency-Key, a cursor, credits, the server itself). Codes of an
 * operation's own rules are worded by the operation (`operationProblem`).
 */
const EXAMPLE_DETAILS: Partial<Record<ProblemCode, string>> = {
  invalid_cursor: 'The cursor is not one this list returned; start again without a cursor.',
  invalid_idempotency_key: 'Send an Idempotency-Key header of 8 to 128 characters: a letter or digit, then letters, digits, `.`, `_`, `:` or `-`.',
  malformed_authorization: 'Send your API key as `Authorization: Bearer <API_KEY>`.',
  not_found: 'No such resource.',
  idempotency_key_reused: 'This Idempotency-Key was used with a different request body.',
  cursor_expired: 'The cursor is no longer valid; start the search again.',
  rate_limited: "The organization's request rate of 25 per second is used up for this second.",
  body_too_large: 'The body is larger than 65,536 bytes.',
  unsupported_media_type: 'Send the body as `Content-Type: application/json`.',
  internal_error: 'Something went wrong on our side; the request id identifies it in our logs.',
  dependency_unavailable: 'The credit ledger did not answer in time; nothing was charged. Retry after the Retry-After delay.',
};

/** Codes whose example reads the same for every operation: the service says the same thing for each. */
export const SHARED_WORDING_CODES = new Set<ProblemCode>([
  'malformed_authorization',
  'missing_api_key',
  'invalid_api_key',
  'malformed_body',
  'body_too_large',
  'unsupported_media_type',
  'invalid_idempotency_key',
  'idempotency_key_reused',
  'idempotency_in_progress',
  'invalid_cursor',
  'cursor_expired',
  'insufficient_credits',
  'family_budget_exhausted',
  'organization_budget_exhausted',
  'dependency_unavailable',
  'internal_error',
]);

const EXAMPLE_REQUEST_ID = 'req_4f2c9a1e7b3d4e5f8a6b0c1d2e3f4a5b';

/** A problem document of `code` as the service writes it, with the detail and members an operation gives it. */
export function problemExample(code: ProblemCode, own?: Problem): Record<string, unknown> {
  const { status, title } = PROBLEM_CODES[code];
  return {
    type: `${PROBLEM_TYPE_PREFIX}${code}`,
    title,
    status,
    detail: own?.detail ?? EXAMPLE_DETAILS[code] ?? `${title}.`,
    code,
    request_id: EXAMPLE_REQUEST_ID,
    instance: `urn:service:developer-api:request:${EXAMPLE_REQUEST_ID}`,
    ...(own?.extensions ?? {}),
  };
}

/** The 422 the route's own schemas give the operation's invalid example, as the executor would. */
function validationProblem(spec: RouteSpec, invalid: NonNullable<OperationExample['invalid']>): Problem | undefined {
  try {
    parseWith(spec.params, invalid.params ?? {}, 'path.');
    parseWith(spec.query, invalid.query ?? {}, 'query.');
    if (spec.body) parseWith(spec.body, invalid.body ?? {}, '');
  } catch (err) {
    if (err instanceof Problem) return err;
    throw err;
  }
  return undefined;
}

/**
 * The problem an operation itself answers with `code`, made by the functions that make the real
 * one where the reference can call them (the permission check, the schemas, the admission's
 * wording), else quoted from the operation's examples; undefined for a code worded the same for
 * every operation.
 */
export function operationProblem(spec: RouteSpec, code: ProblemCode, example?: OperationExample): Problem | undefined {
  if (code === 'insufficient_scope' && spec.permission) return permissionRequired(spec.operation, spec.permission);
  if (code === 'validation_failed' && example?.invalid) return validationProblem(spec, example.invalid);
  if (code === 'rate_limited') {
    const perSecond = OPERATION_REQUESTS_PER_SECOND[spec.operation];
    return new Problem(code, perSecond ? operationRateUsedUp(spec.operation, perSecond) : operationBlocked(spec.operation));
  }
  const own = example?.problems?.[code];
  return typeof own === 'string' ? new Problem(code, own) : own;
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
export function problemResponses(spec: RouteSpec, example?: OperationExample): Record<string, unknown> {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of problemCodesOf(spec)) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    const declared = spec.responses[status]?.description;
    const own = new Map(codes.map((c) => [c, operationProblem(spec, c, example)] as const));
    const named = (c: ProblemCode) => Boolean(declared && new RegExp(`\\b${c}\\b`).test(declared));
    const ofOwnRules = (c: ProblemCode) => Boolean(own.get(c)) && !SHARED_WORDING_CODES.has(c);
    // The example shows a code of the operation's own rules, worded for it, where there is one
    // (the one its own wording names first), else the code its wording names, else the first.
    const shown = codes.find((c) => ofOwnRules(c) && named(c)) ?? codes.find(ofOwnRules) ?? codes.find(named) ?? codes[0];
    out[String(status)] = {
      description: describeCodes(codes, declared),
      ...(RETRY_AFTER_STATUSES.has(status) ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
      content: {
        'application/problem+json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { enum: codes } } }] },
          example: problemExample(shown, own.get(shown)),
        },
      },
    };
  }
  return out;
}
