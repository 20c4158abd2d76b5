/**
 * A value a client sent, quoted in an error answer: a short prefix, escaped. An answer names what
 * it refuses (people need that) but never echoes a hostile request back at length (an 8,000-character
 * query value would come back whole) nor with control characters or markup a console or a browser
 * would act on: JSON string syntax, only printable ASCII, at most `max` characters of the value and,
 * when it was cut, how long it was.
 */

/** How many characters of a client's value an error answer quotes. */
export const QUOTED_PREFIX_CHARS = 40;

const UNPRINTABLE = /[^\x20-\x7e]|[<>&]/g;

export function quoteClientValue(value: string, max = QUOTED_PREFIX_CHARS): string {
  const chars = Array.from(value); // whole code points: a cut never splits a surrogate pair
  const cut = chars.length > max;
  const quoted = JSON.stringify(cut ? chars.slice(0, max).join('') : value).replace(
    UNPRINTABLE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return cut ? `${quoted}... (${chars.length} characters)` : quoted;
}
