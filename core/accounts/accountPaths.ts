/** Pages a mail links to, under AUTH_URL (the pages themselves are mounted by api/oauth). */
export const SIGN_IN_PATH = '/api/oauth/signin';
export const PASSWORD_RESET_PATH = '/api/oauth/reset';
export const CONSOLE_SECURITY_PATH = '/console/security';
export const CONSOLE_OVERVIEW_PATH = '/console/overview';
