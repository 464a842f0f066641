import type Router from '@koa/router';

/** Paths whose matches a router keeps; past it the list starts again (paths with ids are many). */
const KEPT_PATHS = 1000;

/**
 * Makes a router remember which of its layers a method and path match: @koa/router tests every
 * route's pattern against the path on every request, and the busiest paths are few. Its routes
 * must all be registered before; each answer is a fresh copy, since the router hands its arrays
 * to the request (`ctx.matched`), where other routers add to them.
 */
export function rememberMatches(router: Router): void {
  const match = router.match.bind(router);
  const byMethod = new Map<string, Map<string, ReturnType<Router['match']>>>();
  let paths = 0;
  router.match = (path, method) => {
    let byPath = byMethod.get(method);
    let found = byPath?.get(path);
    if (!found) {
      if (paths >= KEPT_PATHS) {
        byMethod.clear();
        paths = 0;
        byPath = undefined;
      }
      found = match(path, method);
      if (!byPath) byMethod.set(method, (byPath = new Map()));
      byPath.set(path, found);
      paths++;
    }
    return { path: [...found.path], pathAndMethod: [...found.pathAndMethod], route: found.route };
  };
}
