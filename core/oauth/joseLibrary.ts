/**
 * jose (JWT signing and verification, JWK import and export), loaded at the first token issued,
 * verified or key published: most processes the API starts (and every worker) never handle an
 * OAuth token, and loading its modules costs each of them start-up time.
 */
export const jose = () => import('jose');
