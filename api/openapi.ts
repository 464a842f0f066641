import { z, type ZodType } from 'zod';
import { PROBLEM_CODES, type ProblemCode } from '../core/problems';
import type { OperationExample } from './reference/operationExamples';
import type { ResponseLink, RouteSpec } from './routeSpec';
import { problemExample, problemResponses } from './reference/problemResponses';
import { JOB_COMPLETED_EVENT_SCHEMA, webhookEvents } from './reference/webhookEvents';
import { objectSchema } from './reference/objectSchema';
import { requestSamples } from './reference/requestSamples';
import { IDEMPOTENCY_KEY_PATTERN } from '../core/idempotency/idempotency';

/**
 * The API reference, generated from the same zod schemas that validate requests, so the
 * document cannot drift from the behaviour. Served at GET /openapi.json.
 */
function jsonSchema(schema: ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete s.$schema;
  return withoutSafeIntegerBounds(s) as Record<string, unknown>;
}

/**
 * zod states every `.int()` as bounded by ±(2^53 − 1), the safe-integer range; that is no
 * limit of this API, and the reference showed it as one (and examples as -9007199254740991).
 * The bounds a field really has are set on its schema.
 */
function withoutSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerBounds);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    out[key] = withoutSafeIntegerBounds(value);
  }
  return out;
}

/**
 * Redoc makes every Markdown heading of the introduction a side-menu entry, as plain text: a
 * heading with inline code would show its `<code>` markup there.
 */
export function plainHeadings(markdown: string): string {
  return markdown.replace(/^(#{1,6} .*)$/gm, (heading) => heading.replace(/`/g, ''));
}

const problemSchema = objectSchema(['type', 'title', 'status', 'code'], {
  type: { type: 'string', example: 'urn:service:developer-api:problem:not_found' },
  title: { type: 'string' },
  status: { type: 'integer' },
  detail: { type: 'string', description: 'human text; may change; never parse it' },
  code: { type: 'string', enum: Object.keys(PROBLEM_CODES), description: 'stable machine code: the contract' },
  request_id: { type: 'string' },
  instance: { type: 'string' },
  required_scope: { type: 'string', description: 'with `insufficient_scope`: the permission the operation needs' },
  errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  required_credits: {
    type: 'integer',
    minimum: 1,
    description:
      "with `insufficient_credits`: the price of the operation's smallest useful answer (one page, one unlock, one match, one contact record), never derived from the data",
  },
});

function narrowedProblem(description: string, codes: ProblemCode[]): Record<string, unknown> {
  return {
    description,
    content: {
      'application/problem+json': {
        schema: { allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { code: { enum: codes } } }] },
        example: problemExample(codes[0]),
      },
    },
  };
}

function openApiLinks(links: Record<string, ResponseLink>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(links).map(([name, l]) => [
      name,
      {
        operationId: l.operation,
        description: l.description,
        ...(l.parameters ? { parameters: l.parameters } : {}),
        ...(l.requestBody ? { requestBody: l.requestBody } : {}),
      },
    ]),
  );
}

/** The headers of api/creditHeaders.ts, as components and inline where a response requires them (a `$ref` takes no `required`). */
const CREDIT_HEADERS = {
  CreditsCharged: {
    description:
      'Credits this request charged: 0 on an idempotent replay (`Idempotent-Replayed: true`), on a refusal (402 and every other error) and on a free answer. ' +
      "A contact-retrieval job's creation always says 0: its records are charged as the job pays for them while it runs (the job's counts and the ledger show them).",
    schema: { type: 'integer', minimum: 0 },
  },
  CreditsRemaining: {
    description:
      "The organization's credit balance as this answer is sent, after this request's charge (read from the ledger, so charges of concurrent requests may show too). " +
      'Not sent on a 429 or 503 (the service is turning requests away and spends no read on them), nor when the balance could not be read.',
    schema: { type: 'integer', minimum: 0 },
  },
};

/**
 * The credit headers on a paid operation's answers (api/creditHeaders.ts): always on its
 * successes and its 402; on its other answers when the operation itself gave them (not on
 * refusals of the credential or of the Idempotency-Key's form, which come before it), and
 * `Credits-Remaining` never on a 429 or 503.
 */
function withCreditHeaders(responses: Record<string, unknown>): void {
  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    if (code === 401 || !response || typeof response !== 'object' || '$ref' in response) continue;
    const always = (code >= 200 && code < 300) || code === 402;
    const ref = (name: 'CreditsCharged' | 'CreditsRemaining') =>
      always ? { ...CREDIT_HEADERS[name], required: true } : { $ref: `#/components/headers/${name}` };
    const doc = response as { headers?: Record<string, unknown> };
    doc.headers = {
      ...(doc.headers ?? {}),
      'Credits-Charged': ref('CreditsCharged'),
      ...(code === 429 || code === 503 ? {} : { 'Credits-Remaining': ref('CreditsRemaining') }),
    };
  }
}

function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** A parameter's example as its schema types it (a query string's `20` is the integer 20). */
function parameterValue(schema: unknown, text: string): string | number {
  const type = (schema as { type?: string }).type;
  return type === 'integer' || type === 'number' ? Number(text) : text;
}

function parameters(spec: RouteSpec, examples: OperationExample | undefined): unknown[] {
  const out: unknown[] = [];
  const add = (where: 'path' | 'query', schema: ZodType | undefined, values: Record<string, string> = {}) => {
    if (!schema) return;
    const js = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === 'path' || (js.required ?? []).includes(name),
        schema: prop,
        ...(values[name] === undefined ? {} : { example: parameterValue(prop, values[name]) }),
      });
    }
  };
  add('path', spec.params, examples?.params);
  add('query', spec.query, examples?.query);
  if (spec.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
      description: 'Same key and body replays the first successful result; a different body is 409.',
    });
  }
  out.push({ $ref: '#/components/parameters/RequestId' });
  return out;
}

/** Every tag the reference uses, in reading order; the linter refuses a tag without a description. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Identity: 'Who the key is: organization, workspace, permissions, limits.',
  'Candidate search': 'Search the talent index (previews) and list the sources a search can use.',
  Profiles: 'Full profiles of people found by a search (paid).',
  'Person matching': 'Find a person from identifying fields (paid per match).',
  'Contact-retrieval jobs': 'Paid, asynchronous retrieval of contact records; results are read once the job finishes.',
  Webhooks: 'Endpoints that receive signed events, their secrets and the deliveries made to them.',
  Limits: 'The limits a key is held to and how much of them is used.',
  OAuth: "The authorization server: machine tokens (client_credentials) and people's clients (authorization code with PKCE).",
  'Sign-in pages': 'HTML pages people use to set a password, sign in, consent and manage connected applications.',
  'Tool server (MCP)': 'The Model Context Protocol server AI applications call with an OAuth access token.',
  'Webhook events': 'What the service POSTs to your endpoints.',
  Operations: 'Probes and metrics for operators.',
  Reference: 'This document and its reference page.',
};

export interface OpenApiInfo {
  baseUrl: string;
  /** An example request body and success answer of each operation (api/reference/operationExamples.ts). */
  examples?: Partial<Record<string, OperationExample>>;
  version?: string;
  /** Markdown at the top of the reference; the default names the error model only. */
  description?: string;
  extraPaths?: Record<string, unknown>;
}

export function buildOpenApi(routes: RouteSpec[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const p = (paths[toOpenApiPath(spec.path)] ??= {});
    const examples = info.examples?.[spec.operation];
    const example = (value: unknown) => (value === undefined ? {} : { example: value });
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(spec.responses)) {
      responses[status] = {
        description: doc.description,
        ...(doc.schema
          ? { content: { 'application/json': { schema: jsonSchema(doc.schema, 'output'), ...example(examples?.responses[Number(status)]) } } }
          : {}),
        ...(doc.links ? { links: openApiLinks(doc.links) } : {}),
      };
    }
    Object.assign(responses, problemResponses(spec, examples));
    if (spec.paid) withCreditHeaders(responses);
    responses.default = { $ref: '#/components/responses/Problem' };
    p[spec.method.toLowerCase()] = {
      operationId: spec.operation,
      summary: spec.summary,
      description: [spec.description, spec.permission ? `Permission: \`${spec.permission}\`.` : 'Any valid key.'].filter(Boolean).join('\n\n'),
      tags: [spec.tag],
      parameters: parameters(spec, examples),
      ...(spec.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input'), ...example(examples?.request) } } } }
        : {}),
      responses,
      security: [{ apiKey: [] }],
      'x-permission': spec.permission ?? null,
      'x-codeSamples': requestSamples(spec, examples, info.baseUrl),
    };
  }
  const allPaths: Record<string, Record<string, { tags?: string[] }>> = { ...paths, ...(info.extraPaths ?? {}) } as Record<
    string,
    Record<string, { tags?: string[] }>
  >;
  const used = new Set(Object.values(allPaths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])));
  used.add('Webhook events');
  const tags = Object.keys(TAG_DESCRIPTIONS)
    .filter((t) => used.has(t))
    .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Talent platform developer API',
      version: info.version ?? '1.0.0',
      description: plainHeadings(
        info.description ??
          'Errors are RFC 9457 problem documents (application/problem+json); `code` is the contract, and every error response names the codes it can carry.',
      ),
      license: { name: 'Proprietary: use is governed by your agreement with the operator', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: info.baseUrl }],
    tags,
    paths: allPaths,
    webhooks: webhookEvents(),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer sk_live_ext_…`' },
        oauthAccessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An RFC 9068 access token from `POST /api/oauth/token` for the resource `{MCP_URL}/tools`.',
        },
      },
      headers: {
        RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
        ...CREDIT_HEADERS,
      },
      parameters: {
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description:
            'Your own id for this request, echoed in the `X-Request-Id` response header and in problem documents. One that is not 1 to 128 letters, digits, `.`, `_`, `:` or `-` is not refused: the service replaces it with its own.',
          schema: { type: 'string', example: 'req_4f2c9a1e7b3d4e5f8a6b0c1d2e3f4a5b' },
        },
      },
      schemas: { Problem: problemSchema, JobCompletedEvent: JOB_COMPLETED_EVENT_SCHEMA },
      responses: {
        Problem: {
          description: 'A problem document',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, example: problemExample('internal_error') } },
        },
        RequestRefused: narrowedProblem('`malformed_request`, `request_timeout` or `headers_too_large`: the HTTP parser refused the request (any path)', [
          'malformed_request',
          'request_timeout',
          'headers_too_large',
        ]),
        OriginNotAllowed: narrowedProblem('`origin_not_allowed`: a browser request from an Origin the deployment does not allow', ['origin_not_allowed']),
        AddressRateLimited: {
          ...narrowedProblem('`rate_limited`: too many requests from this client address (Retry-After)', ['rate_limited']),
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        },
      },
    },
  };
}
