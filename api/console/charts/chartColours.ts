/**
 * The console's chart colours: one per operation and one per outcome, the same on every chart,
 * and no colour shared between the two sets, so green never means an operation on one chart and
 * an outcome on the next. Okabe and Ito's palette, told apart with the common colour-vision
 * deficiencies: the outcomes take green (2xx), grey (other 4xx), vermilion (429) and black (5xx);
 * the paid operations, the ones a credits chart stacks, take the remaining four.
 */
export const OUTCOME_COLOURS = {
  success: '#009E73',
  client_error: '#8C8C8C',
  rate_limited: '#D55E00',
  server_error: '#000000',
} as const;

const OPERATION_COLOURS: Record<string, string> = {
  'candidates.search': '#0072B2',
  'profiles.unlock': '#E69F00',
  'person_matches.create': '#CC79A7',
  'contact_retrieval_jobs.create': '#56B4E9',
  'contact_retrieval_jobs.batch_create': '#F0E442',
};

/** Any other operation (a charge recorded under an unpaid name) is drawn in a dark blue-grey. */
const OTHER_OPERATION = '#4B5D73';

export function operationColour(operation: string): string {
  return OPERATION_COLOURS[operation] ?? OTHER_OPERATION;
}
