import Router from '@koa/router';
import type { Config } from '../../core/config';
import { publishedJwks } from '../../core/oauth/signingKeys';
import {
  AUTHORIZATION_SERVER_METADATA_PATH, JWKS_PATH, PROTECTED_RESOURCE_METADATA_PATH, TOKEN_PATH,
  authorizationServerMetadata, protectedResourceMetadata,
} from './discovery';
import { tokenEndpoint } from './tokenEndpoint';
import { authorizeEndpoint } from './authorizeEndpoint';
import { AUTHORIZE_PATH, REGISTER_PATH } from './pagePaths';
import { registrationEndpoint } from './registrationEndpoint';
import { mountSignInPages } from './signInPages';

/** The OAuth authorization server (token, authorization and registration endpoints, sign-in pages, discovery, JWKS) and the tool server's resource metadata. */
export function oauthRouter(config: Config): Router {
  const router = new Router();
  router.post(TOKEN_PATH, tokenEndpoint(config));
  router.get(AUTHORIZE_PATH, authorizeEndpoint(config));
  router.post(REGISTER_PATH, registrationEndpoint());
  mountSignInPages(router, config);
  router.get(AUTHORIZATION_SERVER_METADATA_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = authorizationServerMetadata(config);
  });
  router.get(PROTECTED_RESOURCE_METADATA_PATH, (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = protectedResourceMetadata(config);
  });
  router.get(JWKS_PATH, async (ctx) => {
    // Short, so verifiers elsewhere see a rotated key soon; they also refetch on an unknown kid.
    ctx.set('Cache-Control', 'public, max-age=60');
    ctx.type = 'application/jwk-set+json';
    ctx.body = await publishedJwks(config.oauth.accessTokenTtlSeconds);
  });
  return router;
}
