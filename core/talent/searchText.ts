/** Text normalization shared by indexing, queries, filters and matching. */

const STOPWORDS = new Set(['a', 'an', 'and', 'at', 'for', 'in', 'of', 'on', 'or', 'the', 'to', 'with', 'years', 'year', 'experience']);

export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim();
}

/** Search tokens: folded words; `c++`, `c#` keep their symbols; stopwords are dropped. */
export function tokenize(text: string): string[] {
  return fold(text)
    .split(/[^a-z0-9+#]+/)
    .filter((t) => t.length > 0 && !STOPWORDS.has(t) && !/^[+#]+$/.test(t));
}

export function uniqueTokens(text: string): string[] {
  return [...new Set(tokenize(text))];
}

/** Whole-word phrase containment on folded text: "software engineer" in "Senior Software Engineer". */
export function containsPhrase(haystackTokens: string[], phraseTokens: string[]): boolean {
  if (!phraseTokens.length) return false;
  outer: for (let i = 0; i + phraseTokens.length <= haystackTokens.length; i++) {
    for (let j = 0; j < phraseTokens.length; j++) if (haystackTokens[i + j] !== phraseTokens[j]) continue outer;
    return true;
  }
  return false;
}
