/**
 * Date/time and duration formats of the API encoder (docs/COMPATIBILITY.md §2).
 *
 * Aware UTC datetimes end in `Z`; fractional seconds are kept to milliseconds only when non-zero;
 * "naive" values (SCT timestamps, PrivateKeyUsagePeriod) are UTC without a suffix.
 */

/** One day in milliseconds (durations of profiles, CA lifetimes and `defaultExpires` are counted in days). */
export const DAY_MS = 86_400_000;

/**
 * The digits of an ASN.1 time in UTC with seconds and the `Z` (RFC 5280 §4.1.2.5): `YYMMDDHHMMSSZ` for
 * UTCTime, `YYYYMMDDHHMMSSZ` for GeneralizedTime.
 */
export function asn1TimeText(d: Date, kind: 'utc' | 'generalized'): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const year = kind === 'utc' ? two(d.getUTCFullYear() % 100) : String(d.getUTCFullYear()).padStart(4, '0');
  return `${year}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
}

function isoBase(d: Date): string {
  const iso = d.toISOString(); // 2026-11-22T11:51:55.283Z — always ms precision, UTC
  const [base, frac] = iso.slice(0, -1).split('.');
  return frac === '000' ? base : `${base}.${frac}`;
}

/** `2026-11-22T11:51:00Z` / `2026-11-22T11:51:55.283Z` */
export function formatUtc(d: Date): string {
  return isoBase(d) + 'Z';
}

/** Naive UTC: `2018-08-09T10:15:21.724` (no suffix). */
export function formatNaive(d: Date): string {
  return isoBase(d);
}

/** Django's ISO-8601 duration: `P100DT00H00M00S`, `P0DT01H30M00S`. */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  const days = Math.floor(rest / DAY_MS);
  rest -= days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const micros = Math.round((rest - seconds * 1000) * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  const frac = micros ? '.' + String(micros).padStart(6, '0') : '';
  return `${sign}P${days}DT${p(hours)}H${p(minutes)}M${p(seconds)}${frac}S`;
}

const ISO_AWARE = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|z|[+-]\d\d:?\d\d)$/;
const ISO_NAIVE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?)?$/;

export interface ParsedDateTime {
  date: Date;
  /** false when the input carried no timezone (interpreted as UTC). */
  aware: boolean;
}

/**
 * Parse an ISO 8601 datetime as the API accepts it. Returns null when the text is not a datetime.
 * Naive values are interpreted as UTC and reported with `aware: false` so that callers can reject them.
 */
export function parseDateTime(text: string): ParsedDateTime | null {
  const aware = ISO_AWARE.exec(text);
  const m = aware ?? ISO_NAIVE.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = m;
  const ms = frac ? Number(('0.' + frac).slice(0, 5)) * 1000 : 0;
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.floor(ms));
  const check = new Date(t);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    return null;
  }
  if (aware) {
    const tz = aware[8];
    if (tz !== 'Z' && tz !== 'z') {
      const sign = tz[0] === '-' ? -1 : 1;
      const digits = tz.slice(1).replace(':', '');
      const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
      t -= offset * 60_000;
    }
  }
  return { date: new Date(t), aware: !!aware };
}
