/** The part of a router layer the access log reads. */
export interface MatchedLayer {
  path: string | RegExp;
  methods: string[];
  /** The route's name: the operation of a /v1 route (api/routeSpec.ts registers it so). */
  name?: string | null;
}

/**
 * The route template a request matched: the last path-matched layer that is a route for this
 * method (what @koa/router itself picks). Read from `ctx.matched` rather than `_matchedRoute`,
 * because the router rewrites `_matchedRoute` to each router-level middleware's pattern while
 * that middleware runs, so a request authentication refused was logged under a regex (or as
 * unmatched) instead of under its route.
 */
export function matchedRoute(layers: readonly MatchedLayer[] | undefined, method: string): string | undefined {
  return matchedLayer(layers, method)?.path as string | undefined;
}

/** The route layer a request matched (see matchedRoute), whose name is its operation. */
export function matchedLayer(layers: readonly MatchedLayer[] | undefined, method: string): MatchedLayer | undefined {
  if (!layers) return undefined;
  for (let i = layers.length - 1; i >= 0; i -= 1) {
    const layer = layers[i];
    if (layer.methods.includes(method) && typeof layer.path === 'string') return layer;
  }
  return undefined;
}
