import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import type { components, operations, paths } from './schema';

/**
 * A typed client of the talent platform's developer API. Types come from the OpenAPI document
 * (src/schema.ts, generated); this file adds what a caller otherwise writes by hand: the key
 * from the environment, an idempotency key for every paid call, waiting out Retry-After on 429,
 * 503 and 409 `idempotency_in_progress`, cursor pagination as async iterators (job results
 * included), waiting for a job, each answer's metadata beside its body, and problem documents
 * as typed errors.
 */
export type Problem = components['schemas']['Problem'];
export type ProblemCode = Problem['code'];
export type JobCompletedEvent = components['schemas']['JobCompletedEvent'];

/** A non-2xx answer: the RFC 9457 problem document, with its stable `code`. */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly problem: Problem;
  /** Seconds the service asked to wait (429 and 503), when the client stopped retrying. */
  readonly retryAfterSeconds?: number;

  constructor(status: number, problem: Problem, retryAfterSeconds?: number) {
    super(`${problem.code}: ${problem.detail ?? problem.title}`);
    this.name = 'ProblemError';
    this.status = status;
    this.code = problem.code;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What an answer's headers say beside its body. */
export interface ResponseMeta {
  /** `X-Request-Id`: quote it when reporting a problem. */
  requestId: string | undefined;
  /** `Idempotent-Replayed: true`: the stored answer of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  /** `Credits-Charged` of a paid call (0 on a replay), else undefined. */
  creditsCharged: number | undefined;
  /** `Credits-Remaining` of a paid call, else undefined. */
  creditsRemaining: number | undefined;
  /** `RateLimit`: per policy (`baseline`, `in_flight`, the operation's, caps), what the next request would find. */
  rateLimit: Record<string, { remaining: number; resetSeconds?: number }>;
  status: number;
}

/** A helper's answer: the body as `data`, the headers' metadata as `meta`. */
export interface WithMeta<T> {
  data: T;
  meta: ResponseMeta;
}

function numberHeader(response: Response, name: string): number | undefined {
  const value = response.headers.get(name);
  return value === null || value.trim() === '' || Number.isNaN(Number(value)) ? undefined : Number(value);
}

/** `RateLimit: "baseline";r=12;t=1, "in_flight";r=24` as a map of policies. */
export function parseRateLimitHeader(header: string | null): ResponseMeta['rateLimit'] {
  const out: ResponseMeta['rateLimit'] = {};
  for (const m of (header ?? '').matchAll(/"((?:[^"\\]|\\.)*)";r=(\d+)(?:;t=(\d+))?/g)) {
    out[m[1].replace(/\\(.)/g, '$1')] = { remaining: Number(m[2]), ...(m[3] === undefined ? {} : { resetSeconds: Number(m[3]) }) };
  }
  return out;
}

export function responseMeta(response: Response): ResponseMeta {
  return {
    requestId: response.headers.get('X-Request-Id') ?? undefined,
    replayed: response.headers.get('Idempotent-Replayed') === 'true',
    creditsCharged: numberHeader(response, 'Credits-Charged'),
    creditsRemaining: numberHeader(response, 'Credits-Remaining'),
    rateLimit: parseRateLimitHeader(response.headers.get('RateLimit')),
    status: response.status,
  };
}

/** `waitForJob` gave up: the job was still running at the deadline. */
export class JobWaitTimeout extends Error {
  constructor(
    readonly jobId: string,
    readonly timeoutMs: number,
  ) {
    super(`job ${jobId} was still running after ${timeoutMs} ms`);
    this.name = 'JobWaitTimeout';
  }
}

export interface WaitForJobOptions {
  /** Default 60,000 ms. */
  timeoutMs?: number;
  /** Between reads of the job (default 1,000 ms). */
  intervalMs?: number;
}

export interface TalentClientOptions {
  /** Default: TALENT_API_KEY. */
  apiKey?: string;
  /** Default: TALENT_API_URL, else http://127.0.0.1:8080. */
  baseUrl?: string;
  /** Retries of one call answered 429, 503 or 409 `idempotency_in_progress` with Retry-After (default 3). */
  maxRetries?: number;
  /** A longer Retry-After is not waited for: the error is thrown at once (default 60 s). */
  maxRetryWaitSeconds?: number;
  fetch?: typeof globalThis.fetch;
}

type JsonBody<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : O extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : never;
type JsonOk<O, S extends number> = O extends { responses: { [K in S]: { content: { 'application/json': infer R } } } } ? R : never;

type Page = { data: unknown[]; next_cursor: string | null };
/** GET paths answering a cursor page. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { 'application/json': Page } } } } } ? P : never;
}[keyof paths];
type ListGet<P extends ListPath> = paths[P] extends { get: infer G } ? G : never;
export type ListItem<P extends ListPath> = JsonOk<ListGet<P>, 200> extends { data: Array<infer I> } ? I : never;
export type ListQuery<P extends ListPath> = ListGet<P> extends { parameters: { query?: infer Q } } ? Omit<NonNullable<Q>, 'cursor'> : never;

export interface PaidCallOptions {
  /** Default: a fresh UUID. Pass your own to make a call safe to repeat after a crash. */
  idempotencyKey?: string;
}

/** Retry-After is seconds or an HTTP date. */
function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Whether an answer asks for the same request again after Retry-After: 429, 503, and 409 while the first request with its Idempotency-Key runs. */
async function retriable(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status === 503) return true;
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: unknown } | undefined;
  return body?.code === 'idempotency_in_progress';
}

/**
 * Waits out Retry-After on 429, 503 and 409 `idempotency_in_progress` and sends the same request
 * again, headers included, so a paid call keeps its Idempotency-Key and is charged at most once.
 */
function retryingFetch(inner: typeof globalThis.fetch, maxRetries: number, maxWaitSeconds: number) {
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      const response = await inner(last ? request : request.clone());
      if (last || !(await retriable(response))) return response;
      const wait = retryAfterSeconds(response.headers.get('Retry-After'));
      if (wait === undefined || wait > maxWaitSeconds) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  };
}

async function problemOf(response: Response, parsed: unknown): Promise<ProblemError> {
  const body = (parsed && typeof parsed === 'object' ? parsed : {}) as Partial<Problem>;
  const problem: Problem = {
    type: body.type ?? 'about:blank',
    title: body.title ?? response.statusText,
    status: body.status ?? response.status,
    code: (body.code ?? 'internal_error') as ProblemCode,
    ...(body.detail ? { detail: body.detail } : {}),
    ...(body.request_id ? { request_id: body.request_id } : {}),
    ...(body.errors ? { errors: body.errors } : {}),
  };
  return new ProblemError(response.status, problem, retryAfterSeconds(response.headers.get('Retry-After')));
}

export function createTalentClient(options: TalentClientOptions = {}) {
  const apiKey = options.apiKey ?? process.env.TALENT_API_KEY;
  if (!apiKey) throw new Error('No API key: set TALENT_API_KEY or pass apiKey.');
  const baseUrl = options.baseUrl ?? process.env.TALENT_API_URL ?? 'http://127.0.0.1:8080';
  const api = createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${apiKey}` },
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.maxRetries ?? 3, options.maxRetryWaitSeconds ?? 60),
  });

  async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<WithMeta<T>> {
    const { data, error, response } = await call;
    if (!response.ok) throw await problemOf(response, error);
    return { data: data as T, meta: responseMeta(response) };
  }
  const idempotency = (o?: PaidCallOptions) => ({ header: { 'Idempotency-Key': o?.idempotencyKey ?? randomUUID() } });

  const searchCandidates = (body: JsonBody<operations['candidates.search']>, o?: PaidCallOptions) =>
    ok(api.POST('/v1/candidates/search', { body, params: idempotency(o) }));
  const getContactRetrievalJob = (id: string) => ok(api.GET('/v1/contact-retrieval-jobs/{id}', { params: { path: { id } } }));
  const getJobResult = (jobId: string, query?: { limit?: number; cursor?: string }) =>
    ok(api.GET('/v1/job-results/{job_id}', { params: { path: { job_id: jobId }, query } }));

  return {
    /** The typed openapi-fetch client, for every operation (it throws nothing: check `error`). */
    api,
    whoami: () => ok(api.GET('/v1/whoami')),
    searchCandidates,
    /** Every preview of a search, page after page (each non-empty page is charged). */
    async *searchAllCandidates(body: Omit<JsonBody<operations['candidates.search']>, 'cursor'>) {
      let page = (await searchCandidates(body)).data;
      yield* page.data;
      while (page.next_cursor) {
        page = (await searchCandidates({ cursor: page.next_cursor })).data;
        yield* page.data;
      }
    },
    unlockProfile: (body: JsonBody<operations['profiles.unlock']>, o?: PaidCallOptions) =>
      ok(api.POST('/v1/profiles/unlock', { body, params: idempotency(o) })),
    matchPerson: (body: JsonBody<operations['person_matches.create']>, o?: PaidCallOptions) =>
      ok(api.POST('/v1/person-matches', { body, params: idempotency(o) })),
    createContactRetrievalJob: (body: JsonBody<operations['contact_retrieval_jobs.create']>, o?: PaidCallOptions) =>
      ok(api.POST('/v1/contact-retrieval-jobs', { body, params: idempotency(o) })),
    createBatchContactRetrievalJob: (body: JsonBody<operations['contact_retrieval_jobs.batch_create']>, o?: PaidCallOptions) =>
      ok(api.POST('/v1/contact-retrieval-jobs/batch', { body, params: idempotency(o) })),
    getContactRetrievalJob,
    /** One page of a job's result (`items`); pass `next_cursor` as `cursor` for the next, or use `jobResultItems`. */
    getJobResult,
    /** Every item of a job's result, page by page. */
    async *jobResultItems(jobId: string, query?: { limit?: number }) {
      let cursor: string | undefined;
      do {
        const page = (await getJobResult(jobId, { ...query, ...(cursor ? { cursor } : {}) })).data;
        yield* page.items;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
    },
    /**
     * Reads the job until it is no longer `running` and answers it then; throws `JobWaitTimeout`
     * when `timeoutMs` passes first. Each read is one request: the job's rate limit applies.
     */
    async waitForJob(id: string, o: WaitForJobOptions = {}) {
      const timeoutMs = o.timeoutMs ?? 60_000;
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await getContactRetrievalJob(id);
        if (job.data.status !== 'running') return job;
        const left = deadline - Date.now();
        if (left <= 0) throw new JobWaitTimeout(id, timeoutMs);
        await new Promise((resolve) => setTimeout(resolve, Math.min(o.intervalMs ?? 1000, left)));
      }
    },
    /** Every item of a cursor-paged list, fetched page by page as the loop asks for them. */
    async *list<P extends ListPath>(path: P, query?: ListQuery<P>): AsyncGenerator<ListItem<P>> {
      const get = api.GET as unknown as (
        p: string,
        init: { params: { query: Record<string, unknown> } },
      ) => Promise<{ data?: Page; error?: unknown; response: Response }>;
      let cursor: string | null = null;
      do {
        const page: Page = (await ok(get(path, { params: { query: { ...(query ?? {}), ...(cursor ? { cursor } : {}) } } }))).data;
        yield* page.data as Array<ListItem<P>>;
        cursor = page.next_cursor;
      } while (cursor);
    },
  };
}

export type TalentClient = ReturnType<typeof createTalentClient>;
