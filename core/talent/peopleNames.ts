import type { TalentStores } from './store';

/** The names of people of the dataset, to show beside their ids (a job's result in the console). */
export function peopleNames(stores: TalentStores, personIds: readonly string[]): Promise<Map<string, string>> {
  return stores.talent.namesOfPeople([...new Set(personIds)]);
}
