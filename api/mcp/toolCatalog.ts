import { z, type ZodType } from 'zod';
import type { OperationName } from '../../core/limits/limitTable';
import type { RouteSpec } from '../routeSpec';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { IDEMPOTENCY_KEY_PATTERN } from '../../core/idempotency/idempotency';
import { PRICES } from '../../core/credits/prices';

/**
 * The tools of the tool server. Each one is a developer-API operation: it runs the same route
 * spec (permission, limits, validation, idempotency, credits), so the two surfaces cannot
 * drift. A tool is offered as soon as its operation's route module is registered.
 */
export interface ToolDefinition {
  name: string;
  operation: OperationName;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** What a paid tool costs, from the one price table. */
  price?: ToolPrice;
}

/** A paid tool's price: `credits` per `per`, and when it costs nothing. */
export interface ToolPrice {
  credits: number;
  per: string;
  free: string;
}

/** The `_meta` key a paid tool's price is listed under (a reverse-DNS-style prefix, as MCP asks of `_meta` keys). */
export const PRICE_META_KEY = 'talent-platform/price';

/** The sentence a paid tool's description ends with. */
export function priceSentence(price: ToolPrice): string {
  return `Costs ${price.credits} credit${price.credits === 1 ? '' : 's'} per ${price.per}; free ${price.free}.`;
}

/** What the tool server tells a client in `initialize` (and `server/discover`): what it is, and that paid tools cost credits. */
export function toolServerInstructions(tools: readonly ToolEntry[]): string {
  const paid = tools.filter((t) => t.definition.price).map((t) => `${t.definition.name} (${priceSentence(t.definition.price!)})`);
  return [
    "The talent platform's tools: search the talent pool, unlock profiles, match people and retrieve contact details, acting for one organization (the same operations, permissions and limits as its developer API).",
    `Paid tools spend the organization's credits: ${paid.join(' ')}`,
    'Each paid tool\'s description and its _meta "talent-platform/price" state its price; pass idempotency_key so a retry is never charged twice.',
  ].join('\n');
}

/**
 * MCP tool annotations, as a client deciding whether to ask before a call reads them. A tool
 * that spends credits is never read-only. Idempotent means a repeat with the same arguments
 * has no further effect even without an idempotency_key (an unlock of a person already unlocked
 * is free; a second cancel changes nothing); a search or a match without one is charged again.
 * Open world: the tool reaches beyond this platform (a job asks the contact provider).
 */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const PAID: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'search_candidates',
    operation: 'candidates.search',
    title: 'Search candidates',
    description: 'Search the talent pool (same as POST /v1/candidates/search). Pass idempotency_key to make a retry safe.',
    annotations: PAID,
    price: { credits: PRICES.searchPage, per: 'page of results', free: 'for an empty page' },
  },
  {
    name: 'list_sources',
    operation: 'search.sources',
    title: 'List search sources',
    description: 'List the search sources this client can use (same as GET /v1/search/sources). Free.',
    annotations: READ,
  },
  {
    name: 'unlock_profile',
    operation: 'profiles.unlock',
    title: 'Unlock a profile',
    description: 'Unlock the full profile of one opaque person identifier (same as POST /v1/profiles/unlock). Pass idempotency_key to make a retry safe.',
    annotations: { ...PAID, idempotentHint: true },
    price: { credits: PRICES.profileUnlock, per: 'profile', free: 'when the organization already unlocked the person' },
  },
  {
    name: 'match_person',
    operation: 'person_matches.create',
    title: 'Match a person',
    description: 'Match a person description to person identifiers (same as POST /v1/person-matches). Pass idempotency_key to make a retry safe.',
    annotations: PAID,
    price: { credits: PRICES.personMatch, per: 'match returned', free: 'when nothing matches' },
  },
  {
    name: 'create_contact_retrieval_job',
    operation: 'contact_retrieval_jobs.create',
    title: 'Create a contact-retrieval job',
    description:
      'Start retrieving contact details for up to 100 person identifiers (same as POST /v1/contact-retrieval-jobs). Runs asynchronously: poll get_contact_retrieval_job, then read get_job_result.',
    annotations: { ...PAID, openWorldHint: true },
    price: { credits: PRICES.contactRecord, per: 'delivered contact record', free: 'for reused, not_found and failed records' },
  },
  {
    name: 'get_contact_retrieval_job',
    operation: 'contact_retrieval_jobs.get',
    title: 'Read a contact-retrieval job',
    description:
      'Read the status and counts of a contact-retrieval job (same as GET /v1/contact-retrieval-jobs/{id}; `id` is the job_id returned at creation).',
    annotations: READ,
  },
  {
    name: 'get_job_result',
    operation: 'job_results.get',
    title: 'Read a job result',
    description: 'Read the result of a finished contact-retrieval job (same as GET /v1/job-results/{job_id}); retained 7 days.',
    annotations: READ,
  },
  {
    name: 'cancel_contact_retrieval_job',
    operation: 'contact_retrieval_jobs.cancel',
    title: 'Cancel a contact-retrieval job',
    description:
      'Ask a running contact-retrieval job to stop (same as POST /v1/contact-retrieval-jobs/{id}/cancel; `id` is the job_id). Delivered records stay charged; the job ends `cancelled`.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'whoami',
    operation: 'whoami',
    title: 'Describe this client',
    description: 'Describe the calling client: organization, workspace, application and permissions (same as GET /v1/whoami). Free.',
    annotations: READ,
  },
];

export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotency_key';

type JsonSchema = { type?: unknown; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

function toJsonSchema(schema: ZodType): JsonSchema {
  const s = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete s.$schema;
  return s;
}

/** Where each tool argument goes in the operation's input: path parameters, query or body. */
export interface ArgumentPlan {
  params: string[];
  query: string[];
  /** True when the body is an object whose members are top-level arguments. */
  bodyMembers: boolean;
  /** Set when the body is not an object: it is passed whole as the argument `body`. */
  bodyArgument: boolean;
}

type ObjectSchema = { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export interface ToolEntry {
  definition: ToolDefinition;
  spec: RouteSpec;
  inputSchema: ObjectSchema & { properties: Record<string, unknown> };
  outputSchema: ObjectSchema;
  plan: ArgumentPlan;
}

/**
 * What a refused call carries as its structured result (toolDispatch.ts `problemPayload`): the
 * problem document's members, plus whatever the problem adds (`unknown_person_ids`, `errors`, …).
 */
const TOOL_PROBLEM_SCHEMA = {
  type: 'object',
  description: 'a refused call (isError: true): the problem document of the developer API',
  properties: {
    code: { type: 'string' },
    status: { type: 'integer' },
    title: { type: 'string' },
    detail: { type: 'string' },
    request_id: { type: 'string' },
    retry_after: { type: 'integer', description: 'seconds, when a retry later can succeed' },
  },
  required: ['code', 'status', 'title', 'detail', 'request_id'],
  additionalProperties: true,
} as const;

/**
 * The tool's structured result: the operation's success response (the route's own schema, as
 * /openapi.json documents it) or, on isError, its problem document.
 */
function outputSchemaOf(spec: RouteSpec): ObjectSchema {
  const success = Object.entries(spec.responses)
    .filter(([status, doc]) => Number(status) >= 200 && Number(status) < 300 && doc.schema)
    .map(([, doc]) => z.toJSONSchema(doc.schema!, { io: 'output', unrepresentable: 'any', target: 'draft-7' }) as JsonSchema)
    .map(({ $schema: _ignored, ...schema }) => schema);
  // Every route of the catalogue documents one; a route without says only that it is an object.
  const answers = success.length ? success : [{ type: 'object', additionalProperties: true }];
  return { type: 'object', anyOf: [...answers, TOOL_PROBLEM_SCHEMA] };
}

/** Whether the caller may call the tool: an application its person allowed only to read may call read-only tools only. */
export function toolAllowed(t: ToolEntry, principal: KeyPrincipal): boolean {
  return principal.agent?.allowance.mode !== 'read_only' || t.definition.annotations.readOnlyHint;
}

/** The tools tools/list shows this caller: only those it may call. */
export function toolsFor(tools: readonly ToolEntry[], principal: KeyPrincipal): ToolEntry[] {
  return tools.filter((t) => toolAllowed(t, principal));
}

/** The tool as tools/list shows it (both protocol revisions). */
export function toolListing(t: ToolEntry) {
  const { name, title, annotations, price } = t.definition;
  const description = price ? `${t.definition.description} ${priceSentence(price)}` : t.definition.description;
  const listed = { name, title, description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: { title, ...annotations } };
  return price ? { ...listed, _meta: { [PRICE_META_KEY]: { credits: price.credits, per: price.per, free: price.free } } } : listed;
}

/**
 * The tool's input schema: path parameters, query parameters and body members side by side
 * (the route's own zod schemas, so the validation is the route's), plus idempotency_key.
 */
export function buildToolEntry(definition: ToolDefinition, spec: RouteSpec): ToolEntry {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const plan: ArgumentPlan = { params: [], query: [], bodyMembers: false, bodyArgument: false };
  const take = (schema: ZodType | undefined, into: string[]) => {
    if (!schema) return;
    const js = toJsonSchema(schema);
    for (const [k, v] of Object.entries(js.properties ?? {})) {
      properties[k] = v;
      into.push(k);
    }
    required.push(...(js.required ?? []));
  };
  take(spec.params, plan.params);
  take(spec.query, plan.query);
  let additional: unknown = false;
  if (spec.body) {
    const js = toJsonSchema(spec.body);
    if (js.type === 'object' && js.properties) {
      plan.bodyMembers = true;
      Object.assign(properties, js.properties);
      required.push(...(js.required ?? []));
      if (js.additionalProperties !== undefined && js.additionalProperties !== false) additional = js.additionalProperties;
    } else {
      plan.bodyArgument = true;
      properties.body = js;
      required.push('body');
    }
  }
  if (spec.idempotent) {
    properties[IDEMPOTENCY_KEY_ARGUMENT] = {
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Makes a retry safe: the same key with the same arguments replays the first result instead of redoing (and re-charging) the work. Generated when absent.',
    };
  }
  const inputSchema: ToolEntry['inputSchema'] = { type: 'object', properties, additionalProperties: additional };
  if (required.length) inputSchema.required = [...new Set(required)];
  return { definition, spec, inputSchema, outputSchema: outputSchemaOf(spec), plan };
}

/** The tools whose operations are registered, in catalogue order. */
export function availableTools(routes: readonly RouteSpec[]): ToolEntry[] {
  const byOperation = new Map(routes.map((r) => [r.operation, r]));
  return TOOL_DEFINITIONS.flatMap((d) => {
    const spec = byOperation.get(d.operation);
    return spec ? [buildToolEntry(d, spec)] : [];
  });
}
