import { CONNECTIONS_PAGE_PATH } from '../oauth/pagePaths';
import { mayReadAuditLog, mayReadSettings, type Reader } from './pageAccess';

/**
 * Where the organization console's pages live under AUTH_URL (DECISIONS.md "Organization
 * console"), and the navigation every console page carries, in its fixed order.
 */
export const CONSOLE_ROOT = '/console';

export const CONSOLE_PATHS = {
  overview: '/console/overview',
  keys: '/console/keys',
  newKey: '/console/keys/new',
  limits: '/console/limits',
  budgets: '/console/budgets',
  usage: '/console/usage',
  webhooks: '/console/webhooks',
  jobs: '/console/jobs',
  team: '/console/team',
  invite: '/console/team/invite',
  audit: '/console/audit',
  settings: '/console/settings',
  confirm: '/console/confirm',
  security: '/console/security',
  authenticatorApp: '/console/security/authenticator-app',
  stylesheet: '/console/assets/console.css',
  script: '/console/assets/console.js',
  passkeyScript: '/console/assets/passkeys.js',
  webAuthnScript: '/console/assets/simplewebauthn-browser.js',
} as const;

export interface NavEntry {
  label: string;
  path: string;
  /** Whether a person may read the page; absent: everyone signed in may. */
  readable?: (reader: Reader) => boolean;
}

export const CONSOLE_NAV: readonly NavEntry[] = [
  { label: 'Overview', path: CONSOLE_PATHS.overview },
  { label: 'API keys', path: CONSOLE_PATHS.keys },
  { label: 'Limits', path: CONSOLE_PATHS.limits },
  { label: 'Budgets', path: CONSOLE_PATHS.budgets },
  { label: 'Usage', path: CONSOLE_PATHS.usage },
  { label: 'Webhooks', path: CONSOLE_PATHS.webhooks },
  { label: 'Jobs', path: CONSOLE_PATHS.jobs },
  { label: 'Team', path: CONSOLE_PATHS.team },
  { label: 'Audit log', path: CONSOLE_PATHS.audit, readable: mayReadAuditLog },
  { label: 'Settings', path: CONSOLE_PATHS.settings, readable: mayReadSettings },
  { label: 'Connected applications', path: CONNECTIONS_PAGE_PATH },
  { label: 'Security', path: CONSOLE_PATHS.security },
];

/** The navigation as `reader` sees it: only the pages they may read. */
export function navigationFor(reader: Reader): NavEntry[] {
  return CONSOLE_NAV.filter((entry) => !entry.readable || entry.readable(reader));
}

/** A key's page under /console/keys. */
export const keyPath = (keyId: string, action: 'rotate' | 'revoke') => `${CONSOLE_PATHS.keys}/${encodeURIComponent(keyId)}/${action}`;

/** A person's page under /console/team. */
export const personPath = (userId: string) => `${CONSOLE_PATHS.team}/${encodeURIComponent(userId)}`;

/** "Change allowance" of one of the visitor's connected applications. */
export const allowancePath = (grantId: string) => `/console/connected-applications/${encodeURIComponent(grantId)}/allowance`;
