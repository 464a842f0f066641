/**
 * The one price table (DECISIONS.md "Paid operations"), in credits. The API reference quotes
 * it; every paid operation reads its price from here.
 */
export const PRICES = {
  /** Per page of search results; an empty page is free. */
  searchPage: 1,
  /** Per profile unlock; free when the organization already unlocked the person. */
  profileUnlock: 5,
  /** Per match returned; no match is free. */
  personMatch: 1,
  /** Per delivered contact record; reused, not_found and failed records are free. */
  contactRecord: 1,
} as const;
