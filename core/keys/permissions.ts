/** API access sets (SPEC 5.1, DECISIONS.md "Identity"). */
export const PERMISSIONS = {
  candidatesSearch: 'candidates.search',
  profilesUnlock: 'profiles.v1:unlock',
  limitsRead: 'limits.v1:read',
  webhooksManage: 'webhooks.v1:manage',
  personMatchesCreate: 'person_matches.v1:create',
  jobsWrite: 'jobs.v1:write',
  jobsRead: 'jobs.v1:read',
  auditRead: 'audit.v1:read',
  usageRead: 'usage.v1:read',
} as const;

export type Permission = (typeof PERMISSIONS)[keyof typeof PERMISSIONS];

export const ALL_PERMISSIONS: readonly Permission[] = Object.values(PERMISSIONS);

export function isPermission(value: string): value is Permission {
  return (ALL_PERMISSIONS as readonly string[]).includes(value);
}

/**
 * The permissions of `requested` that `held` does not include: what a person may not hand on to
 * a key or a teammate (nobody gives more than they have). Empty when the request is within.
 */
export function permissionsBeyond(requested: readonly string[], held: readonly string[]): string[] {
  return [...new Set(requested.filter((p) => !held.includes(p)))];
}
