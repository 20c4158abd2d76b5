/**
 * The query parameters of every admin page, checked before its handler reads them (docs/guides/admin-interface.md):
 * a bad one is a 400 page naming it, so that a typo never reaches the store, where
 * PostgreSQL would refuse it as an error that looks like an outage (a NUL in a text, a year
 * JavaScript's Date accepts and a timestamp column cannot hold, an id beyond its column).
 *
 * Every parameter, read or not: no control character (C0, DEL, C1: no page shows or searches one)
 * and at most `MAX_QUERY_VALUE` characters. A route's `query` declares the parameters that are not
 * free text (`QueryKind`); an empty value is always "not given".
 */
import { HttpError } from '../http/http-errors';
import { normaliseSerial } from '../x509/serial-format';

/**
 * `id`: a page cursor over a table of 32-bit ids (certificates, ACME orders); `eventId`: over the
 * audit log's 64-bit ids, as far as JavaScript counts exactly; `days`: 1 to 36,500; `date`: ISO 8601,
 * a day of the years 1 to 9999 and optionally a time and zone (what PostgreSQL and PGlite store alike);
 * `serial`: a serial as the pages show it or the URLs carry it, hex digits with or without colons;
 * `door`: an issuance intent's way in (`rest`, `acme`, …: letters, digits, `-`, `_`, as its column holds at most 16).
 * A list of words instead of a kind: the value must be one of them (a choice the page offers).
 */
export type QueryKind = 'id' | 'eventId' | 'days' | 'date' | 'serial' | 'door';
export type QuerySpec = Readonly<Record<string, QueryKind | readonly string[]>>;

export const MAX_QUERY_VALUE = 2048;
export const MAX_DAYS = 36_500;
const INT4_MAX = 2_147_483_647;
/** Hex digits of a serial (RFC 5280 §4.1.2.2: at most 20 octets), colons between them allowed. */
const MAX_SERIAL_TEXT = 64;

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))?)?$/i;

/** A whole number from 1 to `max`, written as digits only; else null. */
function wholeNumber(value: string, max: number): number | null {
  if (!/^[0-9]{1,20}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= max ? n : null;
}

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** An ISO 8601 date (and time) that exists on the calendar, an instant of the years 1 to 9999 (UTC); else null. */
export function isoDate(value: string): Date | null {
  const m = ISO_DATE.exec(value);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0, zoneHours = 0, zoneMinutes = 0] = m.slice(1).map((v) => Number(v ?? 0));
  const calendar = new Date(Date.UTC(2000, month - 1, day));
  calendar.setUTCFullYear(year);
  const exists = calendar.getUTCFullYear() === year && calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
  if (year < 1 || !exists || hour > 23 || minute > 59 || second > 59 || zoneHours > 23 || zoneMinutes > 59) return null;
  // The instant too, in UTC: PGlite sends a Date as its ISO string, which PostgreSQL reads for no year
  // before 1 (0000, -000001) or after 9999 (+010000) — a zone can move a day of those years out.
  const parsed = Date.parse(value.replace(' ', 'T'));
  return parsed >= FIRST_INSTANT && parsed <= LAST_INSTANT ? new Date(parsed) : null;
}

const KIND_RULES: Record<QueryKind, { valid: (value: string) => boolean; expected: string }> = {
  id: { valid: (v) => wholeNumber(v, INT4_MAX) !== null, expected: `a whole number from 1 to ${INT4_MAX}` },
  eventId: {
    valid: (v) => wholeNumber(v, Number.MAX_SAFE_INTEGER) !== null,
    expected: `a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`,
  },
  days: { valid: (v) => wholeNumber(v, MAX_DAYS) !== null, expected: `a whole number of days from 1 to ${MAX_DAYS}` },
  serial: {
    valid: (v) => v.length <= MAX_SERIAL_TEXT && normaliseSerial(v) !== null,
    expected: 'a serial: hexadecimal digits, with or without colons (4E:1F:0A or 4E1F0A)',
  },
  door: { valid: (v) => /^[A-Za-z0-9_-]{1,16}$/.test(v), expected: 'a way in: up to 16 letters, digits, - or _ (rest, acme, est, …)' },
  date: {
    valid: (v) => isoDate(v) !== null,
    expected: 'a date of the years 1 to 9999 in ISO 8601 (2026-01-31, 2026-01-31T12:00:00Z, 2026-01-31T12:00:00+02:00)',
  },
};

/** What is wrong with a page's query, in words naming the parameter; null when nothing is. */
export function queryProblem(query: Readonly<Record<string, unknown>>, spec: QuerySpec = {}): string | null {
  for (const [name, given] of Object.entries(query)) {
    if (CONTROL.test(name) || name.length > MAX_QUERY_VALUE) return 'A query parameter has a name with a control character, or too long.';
    const values = Array.isArray(given) ? (given as unknown[]) : [given];
    for (const value of values) {
      if (typeof value !== 'string') return `The query parameter ${name} is not a plain value.`;
      if (CONTROL.test(value)) return `The query parameter ${name} holds a control character.`;
      if (value.length > MAX_QUERY_VALUE) return `The query parameter ${name} is longer than ${MAX_QUERY_VALUE} characters.`;
      const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
      if (kind === undefined || value.trim() === '') continue;
      if (typeof kind !== 'string') {
        if (!kind.includes(value.trim())) return `The query parameter ${name} is not one of ${kind.join(', ')}.`;
      } else if (!KIND_RULES[kind].valid(value.trim())) {
        return `The query parameter ${name} is not ${KIND_RULES[kind].expected}.`;
      }
    }
  }
  return null;
}

/** Throws the 400 of `queryProblem`. */
export function checkQuery(query: Readonly<Record<string, unknown>>, spec: QuerySpec | undefined): void {
  const problem = queryProblem(query, spec);
  if (problem) throw new HttpError(400, problem);
}
