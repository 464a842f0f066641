import type { ZodType, z } from 'zod';
import { Problem, validationFailed, type FieldError } from '../../core/problems';
import { KEY_LIKE } from '../middleware/authenticate';

/**
 * Checks on an operation's input that hold whatever road it came by (HTTP or a tool call): no
 * credential in a body, no tenant identifier anywhere in it, and the route's own schemas.
 */

/** Body members that would let a caller pick a tenant; the key alone decides it. */
const TENANT_FIELDS = new Set(['org_id', 'organization_id', 'org_root', 'account_id', 'workspace_id', 'orgid', 'organizationid', 'accountid', 'workspaceid']);

export function findTenantFields(value: unknown, path = ''): FieldError[] {
  const found: FieldError[] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => found.push(...findTenantFields(v, `${path}[${i}]`)));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const here = path ? `${path}.${k}` : k;
      if (TENANT_FIELDS.has(k.toLowerCase())) {
        found.push({ field: here, message: 'organization and account identifiers are not accepted; the API key decides the tenant' });
      }
      found.push(...findTenantFields(v, here));
    }
  }
  return found;
}

function containsKeyLike(value: unknown): boolean {
  if (typeof value === 'string') return KEY_LIKE.test(value);
  if (Array.isArray(value)) return value.some(containsKeyLike);
  if (value && typeof value === 'object') return Object.values(value).some(containsKeyLike);
  return false;
}

/** 400 `malformed_authorization` for anything shaped like one of our keys inside a body. */
export function rejectCredentialsInBody(body: unknown): void {
  if (containsKeyLike(body)) {
    throw new Problem('malformed_authorization', 'Credentials are accepted only in the Authorization header, never in a body.');
  }
}

export function zodFieldErrors(error: z.ZodError, root: string): FieldError[] {
  return error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    const field = i.code === 'unrecognized_keys' ? (i as { keys: string[] }).keys.map((k) => (path ? `${path}.${k}` : k)).join(', ') : path;
    return { field: field ? `${root}${field}` : root.replace(/\.$/, '') || 'body', message: i.message };
  });
}

export function parseWith<S extends ZodType>(schema: S | undefined, value: unknown, root: string): unknown {
  if (!schema) return value;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationFailed(zodFieldErrors(parsed.error, root));
  return parsed.data;
}
