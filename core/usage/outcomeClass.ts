/**
 * The outcome classes usage counts requests by (DECISIONS.md, `GET /v1/usage`): 2xx success,
 * 429 rate_limited, any other 4xx client_error, 5xx server_error. Other statuses (1xx, 3xx) are
 * no outcome the API answers an operation with, so they count in no class.
 */
export const OUTCOME_CLASSES = ['success', 'client_error', 'rate_limited', 'server_error'] as const;

export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

export function outcomeClass(status: number): OutcomeClass | null {
  if (status >= 200 && status < 300) return 'success';
  if (status === 429) return 'rate_limited';
  if (status >= 400 && status < 500) return 'client_error';
  if (status >= 500 && status < 600) return 'server_error';
  return null;
}
