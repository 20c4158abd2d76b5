/**
 * Signed Certificate Timestamp lists (RFC 6962 §3.3): the extension value is an OCTET STRING holding a
 * TLS-encoded `SignedCertificateTimestampList`. Two extension types share the format: the one embedded in
 * certificates (`precertificate_signed_certificate_timestamps`, entry type "precertificate") and the one
 * in OCSP responses/certificates for X.509 entries (`signed_certificate_timestamps`).
 *
 * API value (docs/COMPATIBILITY.md §2, output only): `[{version: "v1", log_id, timestamp, entry_type}]`.
 *
 * That JSON cannot carry an SCT's extensions and signature, so a value parsed from JSON cannot be
 * encoded (encode throws `unsupported`). A value obtained from `decode` remembers its exact bytes (in a
 * WeakMap keyed by the returned array, so nothing leaks into the JSON) and re-encodes to them, as long as
 * the array still describes those bytes.
 */
import { parseDer, readOctets } from '../asn1';
import { X509Error, invalid, parseError } from '../errors';
import { formatNaive, parseDateTime } from '../datetime';
import { EXTENSION_OIDS } from '../oids';
import type { ExtensionCodec } from './codec';
import { field, parseNonEmptySet, present, requireBase64, requireLiteral, requireObject } from '../json-input';

export type SctEntryType = 'precertificate' | 'x509_certificate';

export interface SignedCertificateTimestamp {
  version: 'v1';
  log_id: string;
  timestamp: string;
  entry_type: SctEntryType;
}

/** The bytes each decoded list came from. */
const ORIGINAL_DER = new WeakMap<SignedCertificateTimestamp[], Buffer>();

/** A cursor over TLS presentation-language data (big-endian, length-prefixed vectors). */
class TlsReader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos === this.buf.length;
  }
  bytes(n: number): Buffer {
    if (this.pos + n > this.buf.length) throw parseError('SignedCertificateTimestampList: truncated');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  uint(n: 1 | 2 | 8): bigint {
    const b = this.bytes(n);
    return BigInt('0x' + b.toString('hex'));
  }
  vector16(): Buffer {
    return this.bytes(Number(this.uint(2)));
  }
}

function decodeSct(data: Buffer, entryType: SctEntryType): SignedCertificateTimestamp {
  const r = new TlsReader(data);
  const version = r.uint(1);
  if (version !== 0n) throw parseError(`SignedCertificateTimestamp: unsupported version ${version}`);
  const logId = r.bytes(32);
  const ms = r.uint(8);
  if (ms > 253402300799999n) throw parseError('SignedCertificateTimestamp: timestamp out of range');
  r.vector16(); // CtExtensions
  r.bytes(2); // hash and signature algorithm
  r.vector16(); // signature
  if (!r.done) throw parseError('SignedCertificateTimestamp: trailing data');
  return {
    version: 'v1',
    log_id: logId.toString('base64'),
    timestamp: formatNaive(new Date(Number(ms))),
    entry_type: entryType,
  };
}

function sctListCodec(
  type: 'precertificate_signed_certificate_timestamps' | 'signed_certificate_timestamps',
  entryType: SctEntryType,
): ExtensionCodec<SignedCertificateTimestamp[]> {
  function decode(der: Buffer): SignedCertificateTimestamp[] {
    const r = new TlsReader(readOctets(parseDer(der, type), type));
    const list = new TlsReader(r.vector16());
    if (!r.done) throw parseError(`${type}: trailing data`);
    const scts: SignedCertificateTimestamp[] = [];
    while (!list.done) scts.push(decodeSct(list.vector16(), entryType));
    if (scts.length === 0) throw parseError(`${type}: empty list`);
    return scts;
  }

  return {
    type,
    oid: EXTENSION_OIDS[type],
    defaultCritical: false,
    requiredCritical: null,
    configurable: false,

    decode(der) {
      const scts = decode(der);
      ORIGINAL_DER.set(scts, Buffer.from(der));
      return scts;
    },

    encode(value) {
      const der = ORIGINAL_DER.get(value);
      if (der && JSON.stringify(decode(der)) === JSON.stringify(value)) return der;
      throw new X509Error('unsupported', `${type}: SCTs are output only (their signatures are not in the API value)`);
    },

    parse(input) {
      return parseNonEmptySet(present(input), (item) => {
        // Fields are read one after the other: the first problem is the one reported.
        const obj = requireObject(item);
        const version = obj.version === undefined ? 'v1' : field(obj, 'version', (v) => requireLiteral(v, ['v1'] as const));
        const logId = field(obj, 'log_id', requireBase64).toString('base64');
        // timestamp and entry_type are read as optional: absent, they are reported as a wrong value
        // (null is neither a datetime nor a literal), not as missing.
        const timestamp = field(
          obj,
          'timestamp',
          (v) => {
            const parsed = typeof v === 'string' ? parseDateTime(v) : null;
            if (!parsed) throw invalid('Input should be a valid datetime', [], 'datetime_parsing');
            return formatNaive(parsed.date);
          },
          'optional',
        );
        const entry = field(obj, 'entry_type', (v) => requireLiteral(v, ['precertificate', 'x509_certificate'] as const), 'optional');
        return { version, log_id: logId, timestamp, entry_type: entry };
      });
    },
  };
}

export const precertificateSignedCertificateTimestampsCodec = sctListCodec(
  'precertificate_signed_certificate_timestamps',
  'precertificate',
);
export const signedCertificateTimestampsCodec = sctListCodec('signed_certificate_timestamps', 'x509_certificate');
