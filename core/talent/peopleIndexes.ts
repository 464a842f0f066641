import type { Logger } from '../observability/logger';
import { ContactMatchIndex } from './contactMatchIndex';
import { SearchIndexHolder } from './searchIndex';

/** The in-memory indexes one app reads people through; its composition root builds them once (core/deps.ts). */
export interface PeopleIndexes {
  readonly search: SearchIndexHolder;
  readonly contacts: ContactMatchIndex;
}

export function createPeopleIndexes(now: () => number, logger: Logger): PeopleIndexes {
  return { search: new SearchIndexHolder(now, logger), contacts: new ContactMatchIndex(logger) };
}
