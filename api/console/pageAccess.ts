import { PERMISSIONS } from '../../core/keys/permissions';
import type { Role } from '../../core/users/adminSeats';

/**
 * Who may read which console page, the one rule the navigation and the pages share: the
 * navigation lists only the pages the person may read (DECISIONS.md "Accounts, settings…").
 * Pages not named here are read by everyone signed in to the organization.
 */
export interface Reader {
  role: Role;
  scopes: readonly string[];
}

/** The audit log: admins, and members holding `audit.v1:read` (what GET /v1/audit-events asks of a key). */
export function mayReadAuditLog(reader: Reader): boolean {
  return reader.role === 'admin' || reader.scopes.includes(PERMISSIONS.auditRead);
}

/**
 * Who may change the organization through the console: admins. The console road asks it of every
 * write (a person's own changes aside), the pages before they offer a form or open one.
 */
export function mayChange(reader: Pick<Reader, 'role'>): boolean {
  return reader.role === 'admin';
}

/** Settings: those who may change the organization, since every part of it is a change. */
export function mayReadSettings(reader: Reader): boolean {
  return mayChange(reader);
}

/** The one sentence a page says to someone who may read it but not change it (consoleLayout.ts `readOnlyNote`). */
export const READ_ONLY_NOTE = 'You can read this page; only an admin of your organization can change it.';
