import type { Context } from 'koa';
import type { Deps } from '../../core/deps';
import { operationDepsOf } from '../../api/operations/executeOperation';
import { requestLogger, requestLogging, requestLogs } from '../../api/requestLogger';
import { mintedRequestId } from '../../api/middleware/requestId';
import { wellFormedHost } from '../../api/requestUrl';
import { Problem } from '../../core/problems';
import { parseRateLimit, rateLimitHeader } from '../../core/limits/rateLimitHeaders';
import { createLogger } from '../../core/observability/logger';
import { capturingLogger } from '../support/capturedLogs';

function countingChildren(logger: ReturnType<typeof createLogger>): { made: () => number } {
  let made = 0;
  const child = logger.child.bind(logger);
  logger.child = ((...args: Parameters<typeof child>) => {
    made += 1;
    return child(...args);
  }) as typeof logger.child;
  return { made: () => made };
}

describe("a request's logger", () => {
  test('is made on the first line and carries the request id; a request that logs nothing makes none', async () => {
    const { logger, lines } = capturingLogger();
    const children = countingChildren(logger);
    const quiet = { state: { requestId: 'req_quiet' } } as unknown as Context;
    await requestLogging(logger)(quiet, async () => {});
    expect(requestLogs(quiet, 'info')).toBe(true);
    expect(requestLogs(quiet, 'debug')).toBe(false);
    expect(children.made()).toBe(0);

    const ctx = { state: { requestId: 'req_1' } } as unknown as Context;
    await requestLogging(logger)(ctx, async () => {
      requestLogger(ctx).info('first');
      requestLogger(ctx).info('second');
    });
    expect(children.made()).toBe(1);
    expect(lines.map((l) => [l.msg, l.request_id])).toEqual([
      ['first', 'req_1'],
      ['second', 'req_1'],
    ]);
  });
});

describe("an operation's view of the app", () => {
  test('sees every dependency, and a logger bound to its request, organization and operation made only when it logs', () => {
    const { logger, lines } = capturingLogger();
    const children = countingChildren(logger);
    const deps = { logger, config: { apiAudience: 'a' } } as unknown as Deps;
    const viewOf = operationDepsOf(deps);
    const silent = viewOf({ request_id: 'req_0', org_id: 'org_0', operation: 'whoami' });
    expect(silent.config).toBe(deps.config);
    expect(children.made()).toBe(0);

    const one = viewOf({ request_id: 'req_1', org_id: 'org_1', operation: 'whoami' });
    const two = viewOf({ request_id: 'req_2', org_id: 'org_2', operation: 'usage.read' });
    one.logger.info('from one');
    two.logger.info('from two');
    one.logger.info('again');
    expect(children.made()).toBe(2);
    expect(lines.map((l) => [l.msg, l.request_id, l.org_id, l.operation])).toEqual([
      ['from one', 'req_1', 'org_1', 'whoami'],
      ['from two', 'req_2', 'org_2', 'usage.read'],
      ['again', 'req_1', 'org_1', 'whoami'],
    ]);
  });
});

describe('well-formed Host', () => {
  const ctxWithHost = (host: string) =>
    ({ app: { proxy: false }, req: { httpVersionMajor: 1 }, get: (name: string) => (name === 'Host' ? host : '') }) as unknown as Context;

  test('a malformed host is refused however many well-formed ones were seen before it', async () => {
    const check = wellFormedHost();
    let passed = 0;
    const next = async () => {
      passed += 1;
    };
    for (let i = 0; i < 200; i++) await check(ctxWithHost(`api${i % 70}.example.com:8080`), next);
    expect(passed).toBe(200);
    for (const bad of ['api.example.com:99999', 'a b', 'user@api.example.com']) {
      // Koa's dispatch turns a middleware's throw into the rejection problemDocuments answers.
      expect(() => check(ctxWithHost(bad), next)).toThrow(Problem);
      // Refused again: a refusal is never remembered as well formed.
      expect(() => check(ctxWithHost(bad), next)).toThrow(Problem);
    }
    expect(passed).toBe(200);
  });
});

describe('a minted request id', () => {
  test('is req_ and the 32 hex digits of a random UUID, different each time', () => {
    const ids = Array.from({ length: 50 }, () => mintedRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('a RateLimit policy name', () => {
  test('is quoted as a structured-field string, its quotes and backslashes escaped', () => {
    const state = (policy: string) => ({ policy, quota: 5, windowSeconds: 60, remaining: 1, resetSeconds: 9 });
    expect(rateLimitHeader([state('whoami@key')])).toBe('"whoami@key";r=1;t=9');
    expect(rateLimitHeader([state('a"b\\c')])).toBe('"a\\"b\\\\c";r=1;t=9');
    expect([...parseRateLimit(rateLimitHeader([state('a"b\\c')])).keys()]).toEqual(['a"b\\c']);
  });
});
