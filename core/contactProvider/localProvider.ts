import type { TalentStores } from '../talent/store';
import type { ContactProvider, ProviderAnswer, ProviderLookupRequest } from './contactProvider';

/**
 * The built-in `local` provider: answers from the seeded `provider_contacts` collection. A
 * person without a record is `not_found`, so the seed's own deterministic share decides the
 * not-found rate.
 *
 * It stands in for a vendor's own database, so it keeps the whole seeded collection in memory
 * (like the person-matching index), reloaded when the people version moves: on FerretDB any
 * read other than a bulk scan costs a scan per call, which would make the stand-in, not the
 * job machinery, the thing a benchmark measures.
 */
interface Snapshot {
  version: number;
  byPerson: Map<string, { emails: string[]; phones: string[] }>;
}

/** How long a loaded snapshot is used before the version is looked at again. */
const VERSION_CHECK_MS = 2_000;

export function localContactProvider(stores: TalentStores, now: () => number): ContactProvider {
  let snapshot: Snapshot | null = null;
  let checkedAt = 0;
  let loading: Promise<Snapshot> | null = null;

  async function load(version: number): Promise<Snapshot> {
    const byPerson = new Map<string, { emails: string[]; phones: string[] }>();
    for await (const c of stores.talent.allProviderContacts()) byPerson.set(c._id, { emails: c.emails ?? [], phones: c.phones ?? [] });
    return { version, byPerson };
  }

  async function current(): Promise<Snapshot> {
    if (snapshot && now() - checkedAt < VERSION_CHECK_MS) return snapshot;
    loading ??= (async () => {
      const version = await stores.talent.peopleVersion();
      if (!snapshot || snapshot.version !== version) snapshot = await load(version);
      checkedAt = now();
      return snapshot;
    })().finally(() => {
      loading = null;
    });
    return loading;
  }

  return {
    name: 'local',
    async lookup(req: ProviderLookupRequest): Promise<ProviderAnswer[]> {
      const { byPerson } = await current();
      return req.personIds.map((personId): ProviderAnswer => {
        const d = byPerson.get(personId);
        if (!d) return { personId, status: 'not_found' };
        return {
          personId,
          status: 'found',
          emails: req.fields.includes('email') ? [...d.emails] : [],
          phones: req.fields.includes('phone') ? [...d.phones] : [],
        };
      });
    },
  };
}
