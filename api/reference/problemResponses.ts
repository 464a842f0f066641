import { PROBLEM_CODES, type ProblemCode } from '../../core/problems';
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
    const named = codes.map((c) => `\`${c}\``).join(', ');
    out[String(status)] = {
      description: declared ? `${named}. ${declared}` : `${named}.`,
      ...(RETRY_AFTER_STATUSES.has(status) ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {}),
      content: {
        'application/problem+json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { enum: codes } } }] },
        },
      },
    };
  }
  return out;
}
