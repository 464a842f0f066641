import type { Config } from '../config';
import type { ContactProvider } from './contactProvider';
import { httpContactProvider } from './httpProvider';
import { localContactProvider } from './localProvider';
import type { TalentStores } from '../talent/store';

export * from './contactProvider';

/** The provider named by CONTACT_PROVIDER, on the root's stores and clock. */
export function createContactProvider(config: Config, stores: TalentStores, now: () => number): ContactProvider {
  const p = config.contactProvider;
  if (p.kind === 'http') {
    if (!p.url) throw new Error('CONTACT_PROVIDER_URL is required when CONTACT_PROVIDER=http');
    return httpContactProvider({ url: p.url, token: p.token, timeoutMs: p.timeoutMs, now });
  }
  return localContactProvider(stores, now);
}
