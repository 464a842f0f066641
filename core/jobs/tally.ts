import { PERSON_OUTCOMES, type PersonOutcome } from './jobTypes';

/** Outcomes counted per person: one shape for a chunk, a running job's progress and a finish. */
export type Tally = Partial<Record<PersonOutcome, number>>;

export function addTally(into: Tally, outcome: PersonOutcome, n = 1): void {
  into[outcome] = (into[outcome] ?? 0) + n;
}

export function mergeTally(into: Tally, from: Tally): void {
  for (const o of PERSON_OUTCOMES) if (from[o] !== undefined) addTally(into, o, from[o]);
}
