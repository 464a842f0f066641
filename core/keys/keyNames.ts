/**
 * A key's name: what people recognise a key by in listings (the console, `key list`). Never a
 * secret and never unique: two keys may share a name, the key id tells them apart.
 */
export const KEY_NAME_MAX_LENGTH = 100;

/** A name given by the caller, trimmed; an error message when it cannot be one. */
export function checkKeyName(given: string): { ok: true; name: string } | { ok: false; message: string } {
  const name = given.trim();
  if (!name) return { ok: false, message: 'a key name must not be blank' };
  if (name.length > KEY_NAME_MAX_LENGTH) return { ok: false, message: `a key name has at most ${KEY_NAME_MAX_LENGTH} characters` };
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return { ok: false, message: 'a key name must not contain control characters (line breaks, tabs)' };
  return { ok: true, name };
}

/**
 * The name a key gets when none is given: a rotation keeps its family's name (the new key
 * replaces the old one, so it is the same thing to the people who read the list); a new key is
 * named after its display prefix, which is what its holder sees at the start of the key.
 */
export function defaultKeyName(displayPrefix: string, familyName: string | null | undefined): string {
  return familyName ?? `Key ${displayPrefix}`;
}
