/** The most characters of a client's value an error message quotes; longer values end in an ellipsis. */
export const MAX_QUOTED_CHARS = 64;

/** How many values of a list a message quotes before it says "and N more". */
export const MAX_QUOTED_VALUES = 5;

/**
 * Characters a message must not carry as they are: messages travel in events (ROUTE_IMPORT_FAILED) through
 * SQS, which refuses lone surrogates and U+FFFE/U+FFFF, and control characters make log lines lie.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}\u2028\u2029]/gu;

const escapeCodePoint = (char: string) =>
  `\\u{${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}}`;

/**
 * A client's value as an error message quotes it: `'R-1'`, or for a long value its first MAX_QUOTED_CHARS
 * characters and an ellipsis (`'xxxx…'`), so a message stays small whatever was sent. Characters that cannot
 * travel or print are written as escapes (`\u{FFFF}`).
 */
export function quote(value: unknown): string {
  return `'${excerpt(typeof value === 'string' ? value : String(JSON.stringify(value)), MAX_QUOTED_CHARS)}'`;
}

/** The first `maxChars` characters of `text` (and an ellipsis when cut), unprintable ones escaped. */
export function excerpt(text: string, maxChars: number): string {
  const chars = text.length > maxChars ? Array.from(text) : undefined;
  const shown = chars && chars.length > maxChars ? `${chars.slice(0, maxChars).join('')}…` : text;
  return shown.replace(UNPRINTABLE, escapeCodePoint);
}

/** `'a', 'b', 'c'`, or the first MAX_QUOTED_VALUES of a longer list and "and N more". */
export function quoteList(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_QUOTED_VALUES).map(quote).join(', ');
  const more = values.length - MAX_QUOTED_VALUES;
  return more > 0 ? `${shown} and ${more} more` : shown;
}
