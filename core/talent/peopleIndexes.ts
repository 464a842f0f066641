import type { Logger } from '../observability/logger';
import { ContactMatchIndex } from './contactMatchIndex';
import { SearchIndexHolder } from './searchIndex';
import type { TalentStores } from './store';

/** The in-memory indexes one app reads people through; its composition root builds them once (core/deps.ts). */
export interface PeopleIndexes {
  readonly search: SearchIndexHolder;
  readonly contacts: ContactMatchIndex;
}

export function createPeopleIndexes(stores: TalentStores, now: () => number, logger: Logger): PeopleIndexes {
  return { search: new SearchIndexHolder(stores, now, logger), contacts: new ContactMatchIndex(stores, logger) };
}
