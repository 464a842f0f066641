import type { Logger } from '../observability/logger';
import type { SearchIndex } from './searchIndexColumns';
import { fold } from './searchText';
import type { TalentStores } from './store';

export function normalizePhone(phone: string): string {
  const digits = phone.replace(/[^\d+]/g, '');
  return digits.startsWith('+') ? `+${digits.slice(1).replace(/\+/g, '')}` : digits.replace(/\+/g, '');
}

interface ContactIndex {
  version: number;
  byEmail: Map<string, string[]>;
  byPhone: Map<string, string[]>;
}

/** One app's reverse lookup of provider contacts, built lazily beside its search index. */
export class ContactMatchIndex {
  private built: ContactIndex | null = null;
  private loading: Promise<ContactIndex> | null = null;

  constructor(
    private readonly stores: TalentStores,
    private readonly logger: Logger,
  ) {}

  async of(idx: SearchIndex): Promise<ContactIndex> {
    if (this.built && this.built.version === idx.version) return this.built;
    this.loading ??= (async () => {
      const byEmail = new Map<string, string[]>();
      const byPhone = new Map<string, string[]>();
      const add = (m: Map<string, string[]>, k: string, id: string) => {
        const l = m.get(k);
        if (l) l.push(id);
        else m.set(k, [id]);
      };
      for await (const c of this.stores.talent.allProviderContacts()) {
        for (const e of c.emails ?? []) add(byEmail, fold(e), c._id);
        for (const p of c.phones ?? []) add(byPhone, normalizePhone(p), c._id);
      }
      this.built = { version: idx.version, byEmail, byPhone };
      this.logger.info({ emails: byEmail.size }, 'contact match index built');
      return this.built;
    })().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }
}
