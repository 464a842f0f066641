import { ProviderContact } from '../talent/models';
import type { ContactProvider, ProviderAnswer, ProviderLookupRequest } from './contactProvider';

/**
 * The built-in `local` provider: answers from the seeded `provider_contacts` collection. A
 * person without a record is `not_found`, so the seed's own deterministic share decides the
 * not-found rate.
 */
export function localContactProvider(): ContactProvider {
  return {
    name: 'local',
    async lookup(req: ProviderLookupRequest): Promise<ProviderAnswer[]> {
      const docs = await ProviderContact.find({ _id: { $in: req.personIds } }).lean();
      const byId = new Map(docs.map((d) => [d._id as string, d]));
      return req.personIds.map((personId): ProviderAnswer => {
        const d = byId.get(personId);
        if (!d) return { personId, status: 'not_found' };
        return {
          personId,
          status: 'found',
          emails: req.fields.includes('email') ? [...(d.emails ?? [])] : [],
          phones: req.fields.includes('phone') ? [...(d.phones ?? [])] : [],
        };
      });
    },
  };
}
