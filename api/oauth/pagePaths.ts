/** Paths of the authorization endpoint, client registration and the sign-in pages, all under AUTH_URL. */
export const AUTHORIZE_PATH = '/api/oauth/authorize';
export const REGISTER_PATH = '/api/oauth/register';
export const SETUP_PAGE_PATH = '/api/oauth/setup';
export const SIGN_IN_PAGE_PATH = '/api/oauth/signin';
export const CONSENT_PAGE_PATH = '/api/oauth/consent';
export const CONNECTIONS_PAGE_PATH = '/api/oauth/connections';
export const REVOKE_CONNECTION_PATH = '/api/oauth/connections/revoke';
export const SIGN_OUT_PATH = '/api/oauth/signout';
export const PASSWORD_RESET_PAGE_PATH = '/api/oauth/reset';
export const TWO_FACTOR_PAGE_PATH = '/api/oauth/signin/two-factor';
export const PASSKEY_SIGN_IN_PATH = '/api/oauth/passkey';
export const PASSKEY_SIGN_IN_OPTIONS_PATH = '/api/oauth/passkey/options';
