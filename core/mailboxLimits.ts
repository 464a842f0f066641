/**
 * RFC 5321 section 4.5.3.1: a mailbox has at most 64 octets before the `@` and 255 after it.
 * What the reference calls `format: email` includes these limits; a looser pattern would let an
 * address through that no mail system delivers to.
 */
export const MAILBOX_LIMITS = { localPart: 64, domain: 255 } as const;

export function withinMailboxLimits(address: string): boolean {
  const at = address.lastIndexOf('@');
  if (at < 1) return false;
  const local = Buffer.byteLength(address.slice(0, at));
  const domain = Buffer.byteLength(address.slice(at + 1));
  return local <= MAILBOX_LIMITS.localPart && domain >= 1 && domain <= MAILBOX_LIMITS.domain;
}
