import type { Config } from '../config';
import type { ContactProvider } from './contactProvider';
import { httpContactProvider } from './httpProvider';
import { localContactProvider } from './localProvider';

export * from './contactProvider';

/** The provider named by CONTACT_PROVIDER. */
export function createContactProvider(config: Config): ContactProvider {
  const p = config.contactProvider;
  if (p.kind === 'http') {
    if (!p.url) throw new Error('CONTACT_PROVIDER_URL is required when CONTACT_PROVIDER=http');
    return httpContactProvider({ url: p.url, token: p.token, timeoutMs: p.timeoutMs });
  }
  return localContactProvider();
}
