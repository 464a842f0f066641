import type { OperationName } from '../../core/limits/limitTable';
import type { RouteSpec } from '../routeSpec';
import type { OperationExample } from './operationExamples';

/**
 * Each /v1 operation's request samples for the reference (Redoc's `x-codeSamples`): a curl line
 * and a call of the TypeScript client (clients/typescript), both sending the operation's own
 * example (its path parameters, the query parameters it samples, its body).
 */
export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** The client's own helpers; every other operation is a call of its typed openapi-fetch client, `talent.api`. */
const CLIENT_HELPERS: Partial<Record<OperationName, (args: { body: string; params: Record<string, string> }) => string>> = {
  whoami: () => 'await talent.whoami()',
  'candidates.search': ({ body }) => `await talent.searchCandidates(${body})`,
  'profiles.unlock': ({ body }) => `await talent.unlockProfile(${body})`,
  'person_matches.create': ({ body }) => `await talent.matchPerson(${body})`,
  'contact_retrieval_jobs.create': ({ body }) => `await talent.createContactRetrievalJob(${body})`,
  'contact_retrieval_jobs.batch_create': ({ body }) => `await talent.createBatchContactRetrievalJob(${body})`,
  'contact_retrieval_jobs.get': ({ params }) => `await talent.getContactRetrievalJob('${params.id}')`,
  'job_results.get': ({ params }) => `await talent.getJobResult('${params.job_id}')`,
};

/** The query parameters a sample sends. */
function sampledQuery(example: OperationExample | undefined): Record<string, string> {
  const query = example?.query ?? {};
  const names = example?.sampled ?? Object.keys(query).filter((name) => name !== 'cursor');
  return Object.fromEntries(names.map((name) => [name, query[name]]));
}

function filledPath(spec: RouteSpec, params: Record<string, string>): string {
  return spec.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? `{${name}}`));
}

/** A JavaScript literal of a JSON value, on one line, as a person writes one. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : `'${k}'`}: ${literal(v)}`);
    return members.length ? `{ ${members.join(', ')} }` : '{}';
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return String(value);
}

function curlSample(spec: RouteSpec, example: OperationExample | undefined, baseUrl: string): string {
  const query = new URLSearchParams(sampledQuery(example)).toString();
  const url = `${baseUrl}${filledPath(spec, example?.params ?? {})}${query ? `?${query}` : ''}`;
  const lines = [`curl -sS${spec.method === 'GET' ? '' : ` -X ${spec.method}`} "${url}"`, '-H "Authorization: Bearer $API_KEY"'];
  if (spec.idempotent) lines.push(`-H "Idempotency-Key: $(node -p 'crypto.randomUUID()')"`);
  if (example?.request !== undefined) {
    lines.push('-H "Content-Type: application/json"');
    lines.push(`-d '${JSON.stringify(example.request).replace(/'/g, `'\\''`)}'`);
  }
  return lines.join(' \\\n  ');
}

function clientSample(spec: RouteSpec, example: OperationExample | undefined): string {
  const params = example?.params ?? {};
  const body = example?.request === undefined ? '' : literal(example.request);
  const helper = CLIENT_HELPERS[spec.operation];
  let call: string;
  if (helper) call = helper({ body, params });
  else {
    const path = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const init: string[] = [];
    const query = sampledQuery(example);
    const parts = [
      ...(Object.keys(params).length ? [`path: ${literal(params)}`] : []),
      ...(Object.keys(query).length ? [`query: ${literal(spec.query ? coerced(query) : query)}`] : []),
    ];
    if (parts.length) init.push(`params: { ${parts.join(', ')} }`);
    if (body) init.push(`body: ${body}`);
    call = `await talent.api.${spec.method}('${path}'${init.length ? `, { ${init.join(', ')} }` : ''})`;
  }
  return [
    "import { createTalentClient } from '@talent-platform/client';",
    '',
    'const talent = createTalentClient(); // TALENT_API_KEY, TALENT_API_URL',
    `const answer = ${call};`,
  ].join('\n');
}

/** Query values as the typed client takes them: numbers as numbers. */
function coerced(query: Record<string, string>): Record<string, string | number> {
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v]));
}

export function requestSamples(spec: RouteSpec, example: OperationExample | undefined, baseUrl: string): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(spec, example, baseUrl) },
    { lang: 'TypeScript', label: 'TypeScript client', source: clientSample(spec, example) },
  ];
}
