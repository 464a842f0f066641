/** Problem-document assertions (SPEC's error model) shared by the HTTP tests. */

/** The part of a response a problem assertion reads: `HttpResponse` and the executor's test responses both fit. */
export interface ProblemResponse {
  status: number;
  headers: Record<string, unknown>;
  json: any;
}

export interface ProblemExpectations {
  /**
   * The `Retry-After` a refusal to wait must carry; with it the response must also be
   * `Cache-Control: private, no-store`, so no shared cache replays a per-tenant refusal.
   */
  retryAfter?: string;
}

/**
 * Asserts `res` is the problem document for `code`: the status, the problem media type, the
 * `type` URN named after the code, a human title and detail, and the request id both in the
 * body and as the `instance` URN, equal to the `X-Request-Id` header so a caller can quote one
 * id to support.
 */
export function expectProblemResponse(res: ProblemResponse, status: number, code: string, opts: ProblemExpectations = {}): void {
  // Status and code together, so a failure shows both.
  expect({ status: res.status, code: res.json?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json).toMatchObject({ type: `urn:service:developer-api:problem:${code}`, status, code });
  expect(typeof res.json.title).toBe('string');
  expect(typeof res.json.detail).toBe('string');
  const requestId = res.headers['x-request-id'];
  expect(typeof requestId).toBe('string');
  expect(res.json.request_id).toBe(requestId);
  expect(res.json.instance).toBe(`urn:service:developer-api:request:${requestId}`);
  if (opts.retryAfter !== undefined) {
    expect(res.headers['retry-after']).toBe(opts.retryAfter);
    expect(res.headers['cache-control']).toBe('private, no-store');
  }
}
