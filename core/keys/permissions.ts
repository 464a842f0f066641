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

/** What each permission allows, in one line for the people who hand it out (the console's checkboxes). */
export const PERMISSION_DESCRIPTIONS: Record<Permission, string> = {
  'candidates.search': 'Search for candidates (1 credit per page of results).',
  'profiles.v1:unlock': "Unlock a person's profile (5 credits, free when already unlocked).",
  'limits.v1:read': 'Read the limits in force for the organization.',
  'webhooks.v1:manage': 'Register, change and retire webhook endpoints; replay deliveries.',
  'person_matches.v1:create': 'Match a person by email, phone or profile (1 credit per match).',
  'jobs.v1:write': 'Start and cancel contact-retrieval jobs (1 credit per delivered contact).',
  'jobs.v1:read': 'Read jobs and their results, contact values included.',
  'audit.v1:read': "Read the organization's audit log.",
  'usage.v1:read': "Read the organization's usage and credits spent.",
};

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
