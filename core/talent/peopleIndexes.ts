import { ContactMatchIndex } from './contactMatchIndex';
import { SearchIndexHolder } from './searchIndex';

/** The in-memory indexes one app reads people through; its composition root builds them once (core/deps.ts). */
export interface PeopleIndexes {
  readonly search: SearchIndexHolder;
  readonly contacts: ContactMatchIndex;
}

export function createPeopleIndexes(now: () => number = Date.now): PeopleIndexes {
  return { search: new SearchIndexHolder(now), contacts: new ContactMatchIndex() };
}
