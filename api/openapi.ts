import { z, type ZodType } from 'zod';
import { PROBLEM_CODES } from '../core/problems';
import type { RouteSpec } from './routeSpec';

/**
 * The API reference, generated from the same zod schemas that validate requests, so the
 * document cannot drift from the behaviour. Served at GET /openapi.json.
 */
function jsonSchema(schema: ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete s.$schema;
  return s;
}

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string', example: 'urn:service:developer-api:problem:not_found' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string', description: 'human text; may change; never parse it' },
    code: { type: 'string', enum: Object.keys(PROBLEM_CODES), description: 'stable machine code: the contract' },
    request_id: { type: 'string' },
    instance: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
};

function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]+)/g, '{$1}');
}

function parameters(spec: RouteSpec): unknown[] {
  const out: unknown[] = [];
  const add = (where: 'path' | 'query', schema: ZodType | undefined) => {
    if (!schema) return;
    const js = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, prop] of Object.entries(js.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (js.required ?? []).includes(name), schema: prop });
    }
  };
  add('path', spec.params);
  add('query', spec.query);
  if (spec.idempotent) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$' },
      description: 'Same key and body replays the first successful result; a different body is 409.',
    });
  }
  out.push({ $ref: '#/components/parameters/RequestId' });
  return out;
}

export function buildOpenApi(routes: RouteSpec[], info: { baseUrl: string; version?: string; extraPaths?: Record<string, unknown> }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const p = (paths[toOpenApiPath(spec.path)] ??= {});
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(spec.responses)) {
      responses[status] = {
        description: doc.description,
        ...(doc.schema ? { content: { 'application/json': { schema: jsonSchema(doc.schema, 'output') } } } : {}),
      };
    }
    responses.default = { $ref: '#/components/responses/Problem' };
    p[spec.method.toLowerCase()] = {
      operationId: spec.operation,
      summary: spec.summary,
      description: [spec.description, spec.permission ? `Permission: \`${spec.permission}\`.` : 'Any valid key.'].filter(Boolean).join('\n\n'),
      tags: [spec.tag],
      parameters: parameters(spec),
      ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input') } } } } : {}),
      responses,
      security: [{ apiKey: [] }],
      'x-permission': spec.permission ?? null,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Talent platform developer API',
      version: info.version ?? '1.0.0',
      description: 'Errors are RFC 9457 problem documents (application/problem+json); `code` is the contract.',
    },
    servers: [{ url: info.baseUrl }],
    paths: { ...paths, ...(info.extraPaths ?? {}) },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer sk_live_ext_…`' } },
      parameters: {
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
        },
      },
      schemas: { Problem: problemSchema },
      responses: {
        Problem: { description: 'A problem document', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
      },
    },
  };
}
