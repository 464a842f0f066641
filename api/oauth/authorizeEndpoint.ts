import type { Stores } from '../../core/deps';
import type { Context } from 'koa';
import type { Config } from '../../core/config';
import type { ClientAddressLimits } from '../../core/limits/clientAddressLimits';
import { checkAuthorizationParams } from '../../core/oauth/authorizationRules';
import { savePending } from '../../core/oauth/pendingAuthorizations';
import type { PublicClients } from '../../core/oauth/publicClients';
import { isLoopbackHttp, redirectUriMatches } from '../../core/oauth/redirectUris';
import { sessionUser } from '../../core/users/sessions';
import { toolsResource } from './tokenEndpoint';
import { errorPage, redirectTo, redirectWithError, resumeAuthorization } from './authorizationFlow';
import { sessionValueOf } from '../views/pageSecurity';
import { SIGN_IN_PAGE_PATH } from './pagePaths';

function multiParams(querystring: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(querystring)) params.set(name, [...(params.get(name) ?? []), value]);
  return params;
}

/**
 * GET {AUTH_URL}/api/oauth/authorize (RFC 6749 4.1.1, OAuth 2.1, RFC 9207, RFC 8707). First the
 * client and its redirect URI: an unknown client or a redirect URI it did not register gets an
 * error page, never a redirect (no open redirector). Everything else that is wrong goes back to
 * the redirect URI as `error`, with `state` and `iss`. A good request is stored and the person
 * signs in (unless already signed in) and consents (unless already consented).
 */
export function authorizeEndpoint(config: Config, stores: Stores, now: () => number, publicClients: PublicClients, addressLimits: ClientAddressLimits) {
  const resource = toolsResource(config);
  return async (ctx: Context) => {
    const params = multiParams(ctx.querystring);
    const clientIds = params.get('client_id') ?? [];
    if (clientIds.length !== 1 || !clientIds[0])
      return errorPage(ctx, 400, 'Sign-in request refused', 'The request does not name exactly one client (client_id).');
    const lookup = await publicClients.resolve(clientIds[0], { address: ctx.ip, requestId: ctx.state.requestId });
    if (!lookup.ok) {
      if (lookup.status) ctx.set('Retry-After', String(lookup.retryAfterSeconds ?? 1));
      return errorPage(ctx, lookup.status ?? 400, 'Sign-in request refused', `The application could not be identified: ${lookup.reason}.`);
    }
    const client = lookup.client;
    const redirectUris = params.get('redirect_uri') ?? [];
    if (redirectUris.length > 1) return errorPage(ctx, 400, 'Sign-in request refused', 'The request names more than one redirect_uri.');
    let redirectUri = redirectUris[0];
    if (redirectUri === undefined) {
      // Allowed only when the client registered exactly one, fixed redirect URI (RFC 6749 3.1.2.3).
      if (client.redirectUris.length !== 1 || isLoopbackHttp(client.redirectUris[0])) {
        return errorPage(ctx, 400, 'Sign-in request refused', 'The request must name its redirect_uri.');
      }
      redirectUri = client.redirectUris[0];
    } else if (!redirectUriMatches(client.redirectUris, redirectUri)) {
      return errorPage(ctx, 400, 'Sign-in request refused', 'The redirect_uri is not one this application registered.');
    }
    const verdict = checkAuthorizationParams(params, resource);
    const state = params.get('state')?.length === 1 ? params.get('state')![0] : null;
    if (!verdict.ok) return redirectWithError(ctx, config, redirectUri, state, verdict.error, verdict.description);
    if (!client.grantTypes.includes('authorization_code'))
      return redirectWithError(ctx, config, redirectUri, state, 'unauthorized_client', 'This client may not use the authorization code grant.');
    // Each request from here stores a pending authorization: an address gets a bounded number of them.
    const admitted = await addressLimits.admit('authorize', ctx.ip, config.addressLimits.authorizeRequestsPerMinute);
    if (!admitted.admitted) {
      ctx.set('Retry-After', String(admitted.retryAfterSeconds));
      return errorPage(
        ctx,
        429,
        'Too many sign-in requests',
        `Too many sign-in requests came from your network in the last minute. Try again in ${admitted.retryAfterSeconds} seconds.`,
      );
    }
    const handle = await savePending(
      stores,
      {
        clientId: client.clientId,
        clientName: client.clientName,
        redirectUri,
        state: verdict.params.state,
        codeChallenge: verdict.params.codeChallenge,
        scope: verdict.params.scope,
        resource: verdict.params.resource,
      },
      new Date(now()),
    );
    const user = await sessionUser(stores, sessionValueOf(ctx, config), new Date(now()));
    if (user) return resumeAuthorization(ctx, config, stores, handle, user, new Date(now()));
    redirectTo(ctx, `${SIGN_IN_PAGE_PATH}?request=${encodeURIComponent(handle)}`);
  };
}
