import type { Stores } from '../../core/deps';
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { Config } from '../../core/config';
import type { PurposeKeys } from '../../core/crypto/purposeKeys';
import { ROUTER_OPTIONS } from '../routerOptions';
import type { AddressAdmission, AddressLimitName, ClientAddressLimits } from '../../core/limits/clientAddressLimits';
import type { PublicClients } from '../../core/oauth/publicClients';
import type { SigningKeys } from '../../core/oauth/signingKeys';
import type { DecoyPasswordHash } from '../../core/users/signIn';
import { retryLater } from '../../core/problems';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  JWKS_PATH,
  OPENID_CONFIGURATION_PATH,
  PROTECTED_RESOURCE_METADATA_PATH,
  PROTECTED_RESOURCE_METADATA_ROOT_PATH,
  TOKEN_PATH,
  authorizationServerMetadata,
  protectedResourceMetadata,
} from './discovery';
import { sendTokenStoreOutage, tokenEndpoint } from './tokenEndpoint';
import { isStoreUnavailable } from '../../core/store/storeUnavailable';
import { authorizeEndpoint } from './authorizeEndpoint';
import { storeOutagePage } from './authorizationFlow';
import { AUTHORIZE_PATH, REGISTER_PATH } from './pagePaths';
import { registrationEndpoint } from './registrationEndpoint';
import { mountSignInPages } from './signInPages';
import { mountPasswordResetPages } from './passwordResetPages';
import { mountSecondFactorPages } from './secondFactorPages';
import { mountPasskeySignIn } from './passkeySignIn';

/**
 * Per-client-address limits in front of the token endpoint and the JWKS, which answer before
 * any credential is known (core/limits/clientAddressLimits.ts). `refuse` writes the 429 in the
 * endpoint's own error format.
 */
function limitPerAddress(
  addressLimits: ClientAddressLimits,
  limit: AddressLimitName,
  perMinute: number,
  refuse: (ctx: Context, retryAfterSeconds: number) => void,
  storeDown?: (ctx: Context, err: unknown) => void,
) {
  return async (ctx: Context, next: Next) => {
    let got: AddressAdmission;
    try {
      got = await addressLimits.admit(limit, ctx.ip, perMinute);
    } catch (err) {
      if (storeDown && isStoreUnavailable(err)) return storeDown(ctx, err);
      throw err;
    }
    if (!got.admitted) return refuse(ctx, got.retryAfterSeconds);
    await next();
  };
}

const refuseTokenRequest = (ctx: Context, retryAfterSeconds: number) => {
  ctx.status = 429;
  ctx.set('Retry-After', String(retryAfterSeconds));
  ctx.set('Cache-Control', 'private, no-store');
  ctx.body = { error: 'rate_limited', error_description: 'Too many token requests from this address; retry after Retry-After seconds.' };
};

const refuseJwks = (_ctx: Context, retryAfterSeconds: number) => {
  throw retryLater('rate_limited', 'Too many JWKS requests from this address; cache the key set and retry after Retry-After seconds.', retryAfterSeconds, {
    extensions: { limit: 'requests_per_minute_per_address' },
  });
};

const refusePasskeyOptions = (_ctx: Context, retryAfterSeconds: number) => {
  throw retryLater('rate_limited', 'Too many passkey sign-in attempts from this address; retry after Retry-After seconds.', retryAfterSeconds, {
    extensions: { limit: 'requests_per_minute_per_address' },
  });
};

export interface OAuthRouterDeps {
  signingKeys: SigningKeys;
  publicClients: PublicClients;
  decoy: DecoyPasswordHash;
  addressLimits: ClientAddressLimits;
  /** The app's clock: the UTC day of Connected applications' spend figures. */
  now: () => number;
  /** The app's stores (core/deps.ts). */
  stores: Stores;
  /** The app's purpose keys: CSRF tokens, sealed refresh rotations, mailed links. */
  purposeKeys: PurposeKeys;
}

/** The OAuth authorization server (token, authorization and registration endpoints, sign-in pages, discovery, JWKS) and the tool server's resource metadata. */
export function oauthRouter(config: Config, { signingKeys, publicClients, decoy, addressLimits, now, stores, purposeKeys }: OAuthRouterDeps): Router {
  const router = new Router(ROUTER_OPTIONS);
  const limits = config.addressLimits;
  router.post(
    TOKEN_PATH,
    limitPerAddress(addressLimits, 'token', limits.tokenRequestsPerMinute, refuseTokenRequest, sendTokenStoreOutage),
    tokenEndpoint({ config, signingKeys, publicClients, now, stores, purposeKeys }),
  );
  router.get(AUTHORIZE_PATH, storeOutagePage(authorizeEndpoint(config, stores, now, publicClients, addressLimits)));
  router.post(REGISTER_PATH, registrationEndpoint(stores, now));
  mountSignInPages(router, config, decoy, now, stores, purposeKeys);
  mountSecondFactorPages(router, config, now, stores, purposeKeys);
  mountPasswordResetPages(router, config, stores, purposeKeys);
  mountPasskeySignIn(
    router,
    config,
    now,
    stores,
    purposeKeys,
    limitPerAddress(addressLimits, 'passkey-options', limits.passkeyOptionsPerMinute, refusePasskeyOptions),
  );
  // One document at both discovery locations: clients try RFC 8414's first, then OpenID's.
  router.get([AUTHORIZATION_SERVER_METADATA_PATH, OPENID_CONFIGURATION_PATH], (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = authorizationServerMetadata(config);
  });
  // Path-inserted (RFC 9728 3.1) and root: both name the one protected resource, `${MCP_URL}/tools`.
  router.get([PROTECTED_RESOURCE_METADATA_PATH, PROTECTED_RESOURCE_METADATA_ROOT_PATH], (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = protectedResourceMetadata(config);
  });
  router.get(JWKS_PATH, limitPerAddress(addressLimits, 'jwks', limits.jwksRequestsPerMinute, refuseJwks), async (ctx) => {
    // Short, so verifiers elsewhere see a rotated key soon; they also refetch on an unknown kid.
    ctx.set('Cache-Control', 'public, max-age=60');
    ctx.type = 'application/jwk-set+json';
    ctx.body = await signingKeys.publishedJwks(new Date(now()));
  });
  return router;
}
