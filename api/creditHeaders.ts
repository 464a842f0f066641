import { currentCreditBalance, type CreditDeps } from '../core/credits/credits';
import type { Logger } from '../core/observability/logger';
import { Problem } from '../core/problems';
import { isStoreUnavailable } from '../core/store/storeUnavailable';

export const CREDITS_CHARGED = 'Credits-Charged';
export const CREDITS_REMAINING = 'Credits-Remaining';

/**
 * Answers that ask the client to come back later: the service is shedding load (a rate or
 * in-flight limit, a quota's 429) or its store is failing (503). Reading the balance for them
 * would spend a store read on exactly the requests being turned away, so they say only what
 * they charged (nothing).
 */
const SHEDDING_STATUSES = new Set([429, 503]);

/** The HTTP status a thrown failure is answered with (problemDocuments.ts maps it the same way). */
export function statusOfFailure(err: unknown): number {
  if (err instanceof Problem) return err.status;
  if (isStoreUnavailable(err)) return 503;
  return 500;
}

/**
 * The credit headers of a paid operation's answer: `Credits-Charged`, what this request charged
 * (0 on a replay, a refusal or a free answer), and `Credits-Remaining`, the organization's
 * balance as the answer leaves (after this request's charge). A balance that cannot be read
 * leaves `Credits-Remaining` out rather than failing an answer whose work is done. `deps`: the
 * app's, whose ledger heads' entry of this request's charge spares reading the balance afresh.
 */
export async function creditHeaders(orgId: string, charged: number, status: number, logger: Logger, deps: CreditDeps): Promise<Record<string, string>> {
  const headers: Record<string, string> = { [CREDITS_CHARGED]: String(charged) };
  if (SHEDDING_STATUSES.has(status)) return headers;
  try {
    headers[CREDITS_REMAINING] = String(await currentCreditBalance(deps, orgId));
  } catch (err) {
    logger.warn({ err, org_id: orgId }, 'reading the credit balance for Credits-Remaining failed');
  }
  return headers;
}
