/**
 * Every router matches paths exactly: case-sensitive, and a trailing slash is another path.
 * `/V1/…`, `/Tools` or `/api/oauth/token/` reach no handler (404), so one resource has one URL
 * and nothing downstream has to normalize paths.
 */
export const ROUTER_OPTIONS = { sensitive: true, strict: true } as const;
