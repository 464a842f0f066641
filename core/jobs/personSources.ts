import { Person } from '../talent/models';

/**
 * The source of each person that exists, in ONE query for the whole list (a job's people are
 * checked before anything is started for them). People absent from the map do not exist.
 */
export async function sourcesOfPeople(personIds: readonly string[]): Promise<Map<string, string>> {
  if (!personIds.length) return new Map();
  const docs = await Person.find({ _id: { $in: [...personIds] } }, { source: 1 }).lean<Array<{ _id: string; source: string }>>();
  return new Map(docs.map((d) => [d._id, d.source]));
}
