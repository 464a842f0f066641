import type { Config } from '../config';
import { ReadCache, waitUntilReadCachesExpire } from '../store/readCache';
import type { TenancyStore, TenancyStores } from '../tenancy/store';

/**
 * Search sources. The built-in talent pool is open to every organization; any other source
 * in the catalogue is usable only once the operator enabled it for the organization
 * (the organization's `enabledSources`). A person belongs to exactly one source.
 */
export const BUILT_IN_SOURCE_ID = 'src_talentpool';
export const OPEN_WEB_SOURCE_ID = 'src_publicweb';

export interface SearchSource {
  id: string;
  name: string;
  description: string;
  covers: string[];
  built_in: boolean;
}

export const SOURCE_CATALOGUE: readonly SearchSource[] = [
  {
    id: BUILT_IN_SOURCE_ID,
    name: 'Talent pool',
    description: 'The built-in pool of professional profiles.',
    covers: ['profiles', 'positions', 'skills', 'education', 'languages', 'locations'],
    built_in: true,
  },
  {
    id: OPEN_WEB_SOURCE_ID,
    name: 'Open web profiles',
    description: 'Profiles gathered from public professional pages; enabled per organization by the operator.',
    covers: ['profiles', 'positions', 'skills', 'locations'],
    built_in: false,
  },
];

/**
 * One app's (or worker's) reads of the sources each organization enabled, each read at most
 * once per READ_CACHE_MS (see readCache.ts): every search needs them. The composition root
 * builds one (core/deps.ts, activities/contacts.ts).
 */
export class EnabledSourceReads {
  private readonly reads = new ReadCache<string[]>();

  constructor(private readonly tenancy: TenancyStore) {}

  enabledOf(settings: Pick<Config, 'readCacheMs'>, orgId: string): Promise<string[]> {
    return this.reads.get(orgId, settings.readCacheMs, () => this.tenancy.enabledSourcesOf(orgId));
  }
}

function usableOf(enabledIds: readonly string[]): SearchSource[] {
  const enabled = new Set(enabledIds);
  return SOURCE_CATALOGUE.filter((s) => s.built_in || enabled.has(s.id));
}

/** The sources this organization may search, built-in first. */
export async function sourcesForOrganization(settings: Pick<Config, 'readCacheMs'>, reads: EnabledSourceReads, orgId: string): Promise<SearchSource[]> {
  return usableOf(await reads.enabledOf(settings, orgId));
}

/** Operator: enable or disable a non-built-in source for an organization. */
export async function setSourceEnabled(
  stores: TenancyStores,
  settings: Pick<Config, 'readCacheMs'>,
  orgId: string,
  sourceId: string,
  enabled: boolean,
): Promise<{ org_id: string; sources: string[] }> {
  const source = SOURCE_CATALOGUE.find((s) => s.id === sourceId);
  if (!source) throw new Error(`unknown source ${sourceId}; known: ${SOURCE_CATALOGUE.map((s) => s.id).join(', ')}`);
  if (source.built_in) throw new Error(`${sourceId} is built in and always enabled`);
  if (!(await stores.tenancy.storeSourceEnabled(orgId, sourceId, enabled))) throw new Error(`organization ${orgId} does not exist`);
  // Returns once no replica still searches with the old set.
  await waitUntilReadCachesExpire(settings.readCacheMs);
  return { org_id: orgId, sources: usableOf(await stores.tenancy.enabledSourcesOf(orgId)).map((s) => s.id) };
}
