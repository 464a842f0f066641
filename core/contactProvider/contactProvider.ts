/** Contact fields a job may ask for, and the only ones a provider answers. */
export const CONTACT_FIELDS = ['email', 'phone'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

/**
 * The one interface between contact-retrieval jobs and whoever holds contact data. A lookup
 * takes a batch of people and answers for each one; transport failures are thrown as
 * `ProviderUnavailable` (worth retrying) or `ProviderRejected` (not worth retrying).
 * Providers get person ids and the wanted fields only: never the customer's credential.
 */
export interface ProviderLookupRequest {
  personIds: string[];
  fields: ContactField[];
  /** Aborts the call (job cancelled, activity cancelled). */
  signal?: AbortSignal;
}

export type ProviderAnswer = { personId: string; status: 'found'; emails: string[]; phones: string[] } | { personId: string; status: 'not_found' };

export interface ContactProvider {
  readonly name: string;
  /** One answer per requested person that the provider answered for; a missing answer is a failure for that person. */
  lookup(req: ProviderLookupRequest): Promise<ProviderAnswer[]>;
}

/** Timeouts, connection errors, 5xx and 429: retried with backoff, then the people fail. */
export class ProviderUnavailable extends Error {
  constructor(
    message: string,
    /** The provider's Retry-After, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider refused the request (4xx other than 429, malformed answer): retrying will not help. */
export class ProviderRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderRejected';
  }
}
