/**
 * `quoteClientValue` (lib/http/quote.ts): what an error answer quotes of a client's value — a short
 * prefix, escaped to printable ASCII, with the length when it was cut.
 */
import { QUOTED_PREFIX_CHARS, quoteClientValue } from '../../lib/http/quote';

describe('quoteClientValue', () => {
  test('a short value is quoted whole, as a JSON string', () => {
    expect(quoteClientValue('GetNextCACert')).toBe('"GetNextCACert"');
    expect(quoteClientValue('')).toBe('""');
    expect(quoteClientValue('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  test('a long value: its first characters and its length', () => {
    const quoted = quoteClientValue('M'.repeat(8000));
    expect(quoted).toBe(`"${'M'.repeat(QUOTED_PREFIX_CHARS)}"... (8000 characters)`);
    expect(quoteClientValue('abcdef', 3)).toBe('"abc"... (6 characters)');
  });

  test('control characters, markup and non-ASCII come out as escapes', () => {
    expect(quoteClientValue('\x1b[31m\r\nX')).toBe('"\\u001b[31m\\r\\nX"');
    expect(quoteClientValue('<script>&')).toBe('"\\u003cscript\\u003e\\u0026"');
    expect(quoteClientValue('é😀')).toBe('"\\u00e9\\ud83d\\ude00"');
    expect(quoteClientValue('😀'.repeat(5), 2)).toBe('"\\ud83d\\ude00\\ud83d\\ude00"... (5 characters)');
    expect(quoteClientValue('\u2028x')).toMatch(/^[\x20-\x7e]+$/);
  });
});
