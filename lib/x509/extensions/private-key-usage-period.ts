/**
 * PrivateKeyUsagePeriod (RFC 3280 §4.2.1.4) ⇄ `{"not_before": datetime|null, "not_after": datetime|null}`
 * (docs/COMPATIBILITY.md §2). Output datetimes are naive UTC (no `Z`), as the reference emits them.
 *
 *   PrivateKeyUsagePeriod ::= SEQUENCE {
 *     notBefore [0] IMPLICIT GeneralizedTime OPTIONAL,
 *     notAfter  [1] IMPLICIT GeneralizedTime OPTIONAL }
 *
 * Fractional seconds are written only when the value has milliseconds (DER: no trailing zeros), so that
 * every value the API can express survives encode → decode.
 */
import { context, contentBytes, contextTag, parseDer, readSequence, seq, toDer } from '../asn1';
import { invalid, parseError } from '../errors';
import { formatNaive, parseDateTime } from '../datetime';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { nullable, parseModel, present, requireObject } from '../json-input';

export interface PrivateKeyUsagePeriodValue {
  not_before: string | null;
  not_after: string | null;
}

const GENERALIZED_TIME = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:\.(\d{1,3}))?Z$/;

function readGeneralizedTime(bytes: Buffer): Date {
  const m = GENERALIZED_TIME.exec(bytes.toString('latin1'));
  if (!m || (m[7] && m[7].endsWith('0'))) throw parseError('PrivateKeyUsagePeriod: malformed GeneralizedTime');
  const [, y, mo, d, h, mi, s, frac = ''] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0')));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
    throw parseError('PrivateKeyUsagePeriod: invalid date');
  }
  return date;
}

function writeGeneralizedTime(date: Date): Buffer {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const ms = date.getUTCMilliseconds();
  const frac = ms ? '.' + p(ms, 3).replace(/0+$/, '') : '';
  const text =
    p(date.getUTCFullYear(), 4) +
    p(date.getUTCMonth() + 1) +
    p(date.getUTCDate()) +
    p(date.getUTCHours()) +
    p(date.getUTCMinutes()) +
    p(date.getUTCSeconds()) +
    frac +
    'Z';
  return Buffer.from(text, 'latin1');
}

/** The naive output text back to a Date (UTC). */
function naiveToDate(text: string): Date {
  return parseDateTime(text)!.date;
}

function parseDateInput(input: unknown): string {
  let date: Date | undefined;
  if (input instanceof Date && !Number.isNaN(input.getTime())) date = input;
  else if (typeof input === 'string') date = parseDateTime(input)?.date;
  if (!date || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) {
    throw invalid('Input should be a valid datetime', [], 'datetime_parsing');
  }
  // Naive input is taken as UTC; aware input is converted to UTC (the extension stores UTC only).
  return formatNaive(date);
}

export const privateKeyUsagePeriodCodec: ExtensionCodec<PrivateKeyUsagePeriodValue> = {
  type: 'private_key_usage_period',
  oid: EXTENSION_OIDS.private_key_usage_period,
  defaultCritical: false,
  requiredCritical: false,
  configurable: true,

  decode(der) {
    const value: PrivateKeyUsagePeriodValue = { not_before: null, not_after: null };
    let lastTag = -1;
    for (const node of readSequence(parseDer(der, 'PrivateKeyUsagePeriod'), 'PrivateKeyUsagePeriod')) {
      const tag = contextTag(node);
      if (tag <= lastTag || tag > 1) throw parseError('PrivateKeyUsagePeriod: unexpected element');
      lastTag = tag;
      const text = formatNaive(readGeneralizedTime(contentBytes(node, 'GeneralizedTime')));
      if (tag === 0) value.not_before = text;
      else value.not_after = text;
    }
    if (value.not_before === null && value.not_after === null) throw parseError('PrivateKeyUsagePeriod: empty');
    return value;
  },

  encode(value) {
    const children = [];
    if (value.not_before !== null) children.push(context(0, false, writeGeneralizedTime(naiveToDate(value.not_before))));
    if (value.not_after !== null) children.push(context(1, false, writeGeneralizedTime(naiveToDate(value.not_after))));
    return toDer(seq(children));
  },

  parse(input) {
    const out = parseModel<PrivateKeyUsagePeriodValue>(requireObject(present(input)), {
      not_before: nullable(parseDateInput),
      not_after: nullable(parseDateInput),
    });
    if (out.not_before === null && out.not_after === null) {
      throw invalid('At least one of not_before and not_after must be set.');
    }
    if (out.not_before !== null && out.not_after !== null && naiveToDate(out.not_after) <= naiveToDate(out.not_before)) {
      throw invalid('not_after cannot be before not_before.');
    }
    return out;
  },
};
