import { randomInt } from 'node:crypto';
import { createApiKey, type KeyPrincipal } from '../../core/keys/apiKeys';
import { ALL_PERMISSIONS, type Permission } from '../../core/keys/permissions';
import type { TalentStores } from '../../core/talent/store';
import type { Stores } from '../../core/deps';
import { createOrganization } from '../../core/tenancy/provisioning';
import { fileStores } from './testStore';

export interface TestTenant {
  orgId: string;
  workspaceId: string;
  applicationId: string;
  key: string;
  keyId: string;
  familyId: string;
}

/**
 * Provisions an organization with a live key, through the same functions the operator CLI uses,
 * in `opts.stores` or else the stores of the root the file opened last (testStore.ts `fileStores`).
 */
export async function createTenant(opts: { credits?: number; scopes?: readonly Permission[]; audience?: string; stores?: Stores } = {}): Promise<TestTenant> {
  const stores = opts.stores ?? fileStores();
  const org = await createOrganization(stores, `test org ${Date.now()}`, opts.credits ?? 0);
  const k = await createApiKey(stores, {
    orgId: org.org_id,
    workspaceId: org.workspace_id,
    applicationId: org.application_id,
    scopes: [...(opts.scopes ?? ALL_PERMISSIONS)],
    audience: opts.audience ?? 'developer-api',
  });
  return { orgId: org.org_id, workspaceId: org.workspace_id, applicationId: org.application_id, key: k.key, keyId: k.key_id, familyId: k.family_id };
}

/** The principal the API builds from the tenant's key, for tests that call core functions directly. */
export function keyPrincipalOf(t: TestTenant): KeyPrincipal {
  return {
    keyId: t.keyId,
    orgId: t.orgId,
    workspaceId: t.workspaceId,
    applicationId: t.applicationId,
    familyId: t.familyId,
    audience: 'developer-api',
    scopes: [...ALL_PERMISSIONS],
  };
}

export async function addKey(t: TestTenant, scopes: readonly Permission[], extra: { environment?: 'live' | 'test'; audience?: string } = {}) {
  return createApiKey(fileStores(), {
    orgId: t.orgId,
    workspaceId: t.workspaceId,
    applicationId: t.applicationId,
    scopes: [...scopes],
    environment: extra.environment,
    audience: extra.audience ?? 'developer-api',
  });
}

let personOrdinal = 0;

/**
 * Puts people with these ids into the dataset (jobs refuse people that do not exist), in the
 * built-in source unless told; ids already there are left alone.
 */
export async function insertTestPeople(stores: TalentStores, personIds: readonly string[], source = 'src_talentpool'): Promise<void> {
  const docs = personIds.map((id) => ({
    _id: id,
    source,
    firstName: 'Test',
    lastName: 'Person',
    fullName: 'Test Person',
    headline: 'Test person',
    title: 'Engineer',
    company: 'Testco',
    seniority: 'mid' as const,
    yearsExperience: 3,
    skills: [],
    languages: [],
    location: { country: 'Nowhere', countryCode: 'NW', region: 'Test', city: 'Test' },
    positions: [],
    education: [],
    profileUrl: `https://profiles.example/${id}`,
    seed: 'test-fixture',
    ordinal: randomInt(2 ** 47) + ++personOrdinal,
  }));
  await stores.talent.insertPeople(docs);
}
