import { namesOfPeople } from './store';

/** The names of people of the dataset, to show beside their ids (a job's result in the console). */
export function peopleNames(personIds: readonly string[]): Promise<Map<string, string>> {
  return namesOfPeople([...new Set(personIds)]);
}
