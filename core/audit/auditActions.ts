/**
 * What the audit log records (DECISIONS.md "Organization console"): the actions, and for each
 * the only fields its `before` and `after` may carry. Values outside the allowlist are dropped,
 * and only scalars and lists of scalars pass, so a key's plaintext or hash, a webhook signing
 * secret or an M2M client secret cannot reach an entry whatever a caller hands over.
 */
export const AUDIT_ACTIONS = [
  'key.created',
  'key.rotated',
  'key.revoked',
  'limit.cap_set',
  'limit.blocked',
  'limit.cleared',
  'limit.rate_set',
  'budget.set',
  'budget.removed',
  'credits.granted',
  'user.invited',
  'user.invitation_resent',
  'user.invitation_cancelled',
  'user.password_reset',
  'user.updated',
  'user.disabled',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.retired',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.test_sent',
  'webhook_delivery.replayed',
  'job.cancelled',
  'grant.revoked',
  'grant.allowance_changed',
  'agent_policy.updated',
  'organization.updated',
  'mfa.enabled',
  'mfa.disabled',
  'recovery_codes.generated',
  'security_policy.updated',
  'passkey.added',
  'passkey.renamed',
  'passkey.removed',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: unknown): value is AuditAction {
  return typeof value === 'string' && (AUDIT_ACTIONS as readonly string[]).includes(value);
}

const KEY_FIELDS = [
  'key_id',
  'family_id',
  'workspace_id',
  'application_id',
  'name',
  'display_prefix',
  'scopes',
  'environment',
  'status',
  'expires_at',
  'revoked_at',
];
const LIMIT_FIELDS = ['operation', 'scope_type', 'scope_id', 'requests_per_minute', 'blocked', 'requests_per_second', 'max_concurrency', 'source'];
const BUDGET_FIELDS = ['family_id', 'budget', 'remaining'];
const USER_FIELDS = ['user_id', 'email', 'workspace_id', 'role', 'permissions', 'status', 'disabled_at'];
const INVITATION_FIELDS = ['invitation_id', 'user_id', 'email', 'workspace_id', 'role', 'permissions', 'status', 'expires_at'];
/** A passkey by its id and name: never its credential id or public key. */
const PASSKEY_FIELDS = ['passkey_id', 'user_id', 'email', 'name'];
const ENDPOINT_FIELDS = ['endpoint_id', 'workspace_id', 'url', 'state', 'enabled', 'rotated_at', 'previous_valid_until'];

export const AUDIT_FIELDS: Record<AuditAction, readonly string[]> = {
  'key.created': KEY_FIELDS,
  'key.rotated': [...KEY_FIELDS, 'replaced_key_id', 'replaced_key_expires_at'],
  'key.revoked': KEY_FIELDS,
  'limit.cap_set': LIMIT_FIELDS,
  'limit.blocked': LIMIT_FIELDS,
  'limit.cleared': LIMIT_FIELDS,
  'limit.rate_set': LIMIT_FIELDS,
  'budget.set': BUDGET_FIELDS,
  'budget.removed': BUDGET_FIELDS,
  'credits.granted': ['amount', 'balance'],
  'user.invited': INVITATION_FIELDS,
  'user.invitation_resent': INVITATION_FIELDS,
  'user.invitation_cancelled': INVITATION_FIELDS,
  'user.password_reset': ['user_id', 'email', 'revoked_chains'],
  'user.updated': USER_FIELDS,
  'user.disabled': [...USER_FIELDS, 'revoked_chains'],
  'webhook_endpoint.created': ENDPOINT_FIELDS,
  'webhook_endpoint.updated': ENDPOINT_FIELDS,
  'webhook_endpoint.retired': ENDPOINT_FIELDS,
  'webhook_endpoint.secret_rotated': ENDPOINT_FIELDS,
  'webhook_endpoint.test_sent': ['endpoint_id', 'workspace_id', 'event_id', 'job_id'],
  'webhook_delivery.replayed': ['delivery_id', 'event_id', 'endpoint_id', 'replay', 'status'],
  'job.cancelled': ['job_id', 'status'],
  'grant.revoked': ['user_id', 'client_id', 'revoked_client_ids'],
  'grant.allowance_changed': ['grant_id', 'user_id', 'client_id', 'client_name', 'allowance', 'daily_credits'],
  'agent_policy.updated': ['mode', 'default_daily_credits', 'max_daily_credits'],
  'organization.updated': ['name'],
  'mfa.enabled': ['user_id', 'email', 'method'],
  'mfa.disabled': ['user_id', 'email', 'method'],
  'recovery_codes.generated': ['user_id', 'email', 'count'],
  'security_policy.updated': ['require_second_factor'],
  'passkey.added': PASSKEY_FIELDS,
  'passkey.renamed': PASSKEY_FIELDS,
  'passkey.removed': PASSKEY_FIELDS,
};

/** Names no allowlist may ever hold: the unit test checks each action's list against them. */
export const SECRET_FIELD_PATTERN = /secret|password|token|hash|plaintext|api_key|^key$|signing/i;

type AuditScalar = string | number | boolean | null;
export type AuditValues = Record<string, AuditScalar | AuditScalar[]>;

function scalar(v: unknown): v is AuditScalar {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/**
 * The part of `values` an entry of `action` may keep: allowlisted fields whose value is a
 * scalar, a Date (as ISO text) or a list of scalars; null when nothing is left or none was given.
 */
export function auditValues(action: AuditAction, values: Record<string, unknown> | null | undefined): AuditValues | null {
  if (!values) return null;
  const out: AuditValues = {};
  for (const field of AUDIT_FIELDS[action]) {
    if (!Object.hasOwn(values, field)) continue;
    const v = values[field] instanceof Date ? (values[field] as Date).toISOString() : values[field];
    if (scalar(v)) out[field] = v;
    else if (Array.isArray(v) && v.every(scalar)) out[field] = [...v];
  }
  return Object.keys(out).length ? out : null;
}

/** Who made a change: a signed-in person, an API key, an M2M client or the service operator. */
export type AuditActor = `user:${string}` | `key:${string}` | `m2m:${string}` | 'operator';

export const OPERATOR: AuditActor = 'operator';
const ACTOR = /^(?:(?:user|key|m2m):[A-Za-z0-9_-]{1,100}|operator)$/;

export function isAuditActor(value: unknown): value is AuditActor {
  return typeof value === 'string' && ACTOR.test(value);
}
