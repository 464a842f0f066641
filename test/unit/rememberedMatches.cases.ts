import Router from '@koa/router';
import { rememberMatches } from '../../api/rememberedMatches';

/** A router whose own matching is counted, then made to remember its matches. */
function countedRouter() {
  const router = new Router({ sensitive: true, strict: true });
  router.get('/v1/a', () => undefined);
  router.get('/v1/b/:id', () => undefined);
  router.post('/v1/b/:id', () => undefined);
  const own = router.match.bind(router);
  const counted = { calls: 0, router };
  router.match = (path, method) => {
    counted.calls++;
    return own(path, method);
  };
  rememberMatches(router);
  return counted;
}

describe('rememberMatches', () => {
  it('answers a method and path it matched before without matching again, as the router answered', () => {
    const counted = countedRouter();
    const first = counted.router.match('/v1/b/x', 'GET');
    const again = counted.router.match('/v1/b/x', 'GET');
    expect(counted.calls).toBe(1);
    expect(again).toEqual(first);
    expect(again.route).toBe(true);
    expect(again.path.map((l) => l.path)).toEqual(['/v1/b/:id', '/v1/b/:id']);
    expect(again.pathAndMethod.map((l) => l.methods)).toEqual([['HEAD', 'GET']]);
    // Another method or path is matched by the router itself.
    expect(counted.router.match('/v1/b/x', 'DELETE')).toMatchObject({ route: false, pathAndMethod: [] });
    expect(counted.router.match('/v1/nothing', 'GET')).toEqual({ path: [], pathAndMethod: [], route: false });
    expect(counted.calls).toBe(3);
  });

  it('gives each request arrays of its own: what one adds to them, the next does not see', () => {
    const counted = countedRouter();
    const first = counted.router.match('/v1/a', 'GET');
    first.path.push(...first.path);
    first.pathAndMethod.length = 0;
    const next = counted.router.match('/v1/a', 'GET');
    expect(next.path).toHaveLength(1);
    expect(next.pathAndMethod).toHaveLength(1);
  });

  it('keeps a bounded number of paths, then starts again', () => {
    const counted = countedRouter();
    counted.router.match('/v1/a', 'GET');
    for (let i = 0; i < 1000; i++) counted.router.match(`/v1/b/${i}`, 'GET');
    const calls = counted.calls;
    counted.router.match('/v1/a', 'GET');
    expect(counted.calls).toBe(calls + 1);
  });
});
