import { execFileSync } from 'child_process';
import {
  precertificateSignedCertificateTimestampsCodec as precertCodec,
  signedCertificateTimestampsCodec as x509Codec,
} from '../../../lib/x509/extensions/signed-certificate-timestamps';
import { X509Error } from '../../../lib/x509/errors';
import { octets, parseDer, readOctets, toDer } from '../../../lib/x509/asn1';
import { loadCorpusEntry, pemToDer } from '../../helpers/corpus';
import { rawExtensions } from './helpers/openssl-extensions';
import { issuesOf } from './helpers/issues';

const OID = '1.3.6.1.4.1.11129.2.4.2';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Log ids and timestamps as `openssl x509 -text` prints them, converted to the API's forms. */
function opensslScts(pem: string): { log_id: string; timestamp: string }[] {
  const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem }).toString();
  const out: { log_id: string; timestamp: string }[] = [];
  const re = /Log ID\s*:\s*([0-9A-F:\s]+?)\s*Timestamp\s*:\s*(\w{3})\s+(\d+)\s+(\d\d:\d\d:\d\d)(?:\.(\d+))?\s+(\d{4}) GMT/g;
  for (const m of text.matchAll(re)) {
    const logId = Buffer.from(m[1].replace(/[\s:]/g, ''), 'hex').toString('base64');
    const month = String(MONTHS.indexOf(m[2]) + 1).padStart(2, '0');
    const ms = m[5] ? '.' + m[5].padEnd(3, '0') : '';
    out.push({ log_id: logId, timestamp: `${m[6]}-${month}-${m[3].padStart(2, '0')}T${m[4]}${ms}` });
  }
  return out;
}

describe.each(['letsencrypt_x3-cert', 'comodo_ev-cert'])('SCT list of %s', (name) => {
  const { pem } = loadCorpusEntry(name);
  const ext = rawExtensions(pemToDer(pem)).find((e) => e.oid === OID)!;

  test('decodes to what openssl reports', () => {
    const expected = opensslScts(pem);
    expect(expected.length).toBeGreaterThan(0);
    expect(precertCodec.decode(ext.extnValue)).toEqual(
      expected.map((e) => ({ version: 'v1', log_id: e.log_id, timestamp: e.timestamp, entry_type: 'precertificate' })),
    );
  });

  test('a decoded value re-encodes exactly; a JSON copy cannot be encoded (signatures are not in the JSON)', () => {
    const value = precertCodec.decode(ext.extnValue);
    expect(precertCodec.encode(value).equals(ext.extnValue)).toBe(true);
    const copy = JSON.parse(JSON.stringify(value));
    expect(() => precertCodec.encode(copy)).toThrow(expect.objectContaining({ code: 'unsupported' }));
    value[0].log_id = value[1].log_id; // a changed value no longer describes the remembered bytes
    expect(() => precertCodec.encode(value)).toThrow(X509Error);
  });

  test('the same list in the x509 type reports x509_certificate entries', () => {
    expect(x509Codec.decode(ext.extnValue).every((s) => s.entry_type === 'x509_certificate')).toBe(true);
  });
});

describe('SCT list codec', () => {
  test('rejects truncated and trailing data', () => {
    const { pem } = loadCorpusEntry('letsencrypt_x3-cert');
    const ext = rawExtensions(pemToDer(pem)).find((e) => e.oid === OID)!;
    const inner = readOctets(parseDer(ext.extnValue));
    const rewrap = (b: Buffer) => toDer(octets(b));
    expect(precertCodec.decode(rewrap(inner))).toHaveLength(2); // the rewrapping itself is sound
    expect(() => precertCodec.decode(rewrap(inner.subarray(0, inner.length - 1)))).toThrow(X509Error);
    expect(() => precertCodec.decode(rewrap(Buffer.concat([inner, Buffer.from([0])])))).toThrow(X509Error);
  });

  test('parse validates the output shape', () => {
    const sct = { version: 'v1', log_id: 'AAAA', timestamp: '2019-06-25T03:40:03.920', entry_type: 'precertificate' };
    expect(precertCodec.parse([sct])).toEqual([sct]);
    expect(issuesOf(() => precertCodec.parse([{ ...sct, entry_type: 'x' }]))[0].loc).toEqual([0, 'entry_type']);
  });
});
