import { execFileSync } from 'child_process';
import * as asn1 from '../../../lib/x509/asn1';
import { authorityKeyIdentifierCodec as codec } from '../../../lib/x509/extensions/authority-key-identifier';
import { checkCorpusRoundTrips, cleanupOpenssl, extensionDer, issuesOf, opensslCertificate, viaJson } from './extension-fixtures';

afterAll(cleanupOpenssl);

const OID = '2.5.29.35';
const uri = (value: string) => ({ type: 'URI', value });

describe('authority_key_identifier codec', () => {
  test('envelope facts of models.md §5 (non-critical, added by the CA)', () => {
    expect([codec.type, codec.oid, codec.defaultCritical, codec.requiredCritical, codec.configurable]).toEqual([
      'authority_key_identifier',
      OID,
      false,
      false,
      false,
    ]);
  });

  test('every corpus AKI round-trips byte for byte and decodes to its JSON', () => {
    expect(checkCorpusRoundTrips(codec)).toBeGreaterThanOrEqual(25);
  });

  test('agrees with openssl for key id, issuer and serial', () => {
    const pem = opensslCertificate('subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always, issuer:always');
    const der = extensionDer(pem, OID);
    // What openssl says independently: the self-signed cert's own SKI, subject and serial.
    const ski = asn1.readOctets(asn1.parseDer(extensionDer(pem, '2.5.29.14')));
    const serialHex = execFileSync('openssl', ['x509', '-noout', '-serial'], { input: pem, encoding: 'utf8' })
      .trim()
      .replace(/^serial=/, '');
    const serial = BigInt('0x' + serialHex);
    const value = codec.decode(der);
    expect(value.key_identifier).toBe(ski.toString('base64'));
    expect(value.authority_cert_issuer).toEqual([{ type: 'dirName', value: [{ oid: '2.5.4.3', value: 'oracle' }] }]);
    expect(BigInt(value.authority_cert_serial_number!)).toBe(serial);
    expect(typeof value.authority_cert_serial_number).toBe('bigint'); // 20 random bytes do not fit a double
    expect(codec.encode(value).toString('hex')).toBe(der.toString('hex'));
  });

  test('serial numbers: small ones are numbers, signs and leading zero bytes are written minimally', () => {
    const base = { key_identifier: null, authority_cert_issuer: [uri('http://ca.example')] };
    for (const [serial, contentHex] of [
      [0, '00'],
      [127, '7f'],
      [128, '0080'],
      [-1, 'ff'],
      ['340282366920938463463374607431768211455', '00ffffffffffffffffffffffffffffffff'],
    ] as const) {
      const value = codec.parse({ ...base, authority_cert_serial_number: serial });
      const der = codec.encode(value);
      const parts = asn1.readSequence(asn1.parseDer(der), 'aki');
      expect(asn1.contextTag(parts[1])).toBe(2);
      expect(asn1.contentBytes(parts[1], 'serial').toString('hex')).toBe(contentHex);
      expect(codec.decode(der)).toEqual(value);
    }
    expect(codec.parse({ ...base, authority_cert_serial_number: 5 }).authority_cert_serial_number).toBe(5);
  });

  test('key_identifier base64 is canonicalised and written as [0] IMPLICIT OCTET STRING', () => {
    const value = codec.parse({ key_identifier: 'AQID\nBA==' });
    expect(viaJson(value)).toEqual({ key_identifier: 'AQIDBA==', authority_cert_issuer: null, authority_cert_serial_number: null });
    expect(codec.encode(value).toString('hex')).toBe('3006800401020304');
  });

  test('rule: key_identifier is required (may be null)', () => {
    expect(issuesOf(() => codec.parse({ authority_cert_issuer: [uri('http://ca.example')], authority_cert_serial_number: 1 }))).toEqual([
      { type: 'missing', loc: ['key_identifier'], msg: 'Field required' },
    ]);
    expect(
      codec.parse({ key_identifier: null, authority_cert_issuer: [uri('http://ca.example')], authority_cert_serial_number: 1 }),
    ).toEqual({ key_identifier: null, authority_cert_issuer: [uri('http://ca.example')], authority_cert_serial_number: 1 });
  });

  test('rule: key_identifier must be base64', () => {
    expect(issuesOf(() => codec.parse({ key_identifier: 'abcde' }))).toEqual([
      { type: 'value_error', loc: ['key_identifier'], msg: 'abcde: Not a valid base64 string' },
    ]);
  });

  test('rule: issuer and serial both present or both None', () => {
    const msg = 'authority_cert_issuer and authority_cert_serial_number must both be present or both None';
    expect(issuesOf(() => codec.parse({ key_identifier: 'AQID', authority_cert_serial_number: 1 }))).toEqual([
      { type: 'value_error', loc: [], msg },
    ]);
    expect(issuesOf(() => codec.parse({ key_identifier: 'AQID', authority_cert_issuer: [uri('http://ca.example')] }))).toEqual([
      { type: 'value_error', loc: [], msg },
    ]);
  });

  test('rule: key_identifier or issuer must be given', () => {
    expect(issuesOf(() => codec.parse({ key_identifier: null }))).toEqual([
      {
        type: 'value_error',
        loc: [],
        msg: 'At least one of key_identifier or authority_cert_issuer/authority_cert_serial_number must be given.',
      },
    ]);
  });

  test('rule: serial is an integer, issuer items are GeneralNames', () => {
    expect(
      issuesOf(() => codec.parse({ key_identifier: null, authority_cert_issuer: [uri('nope')], authority_cert_serial_number: 1.5 })),
    ).toEqual([
      { type: 'value_error', loc: ['authority_cert_issuer', 0], msg: 'URL requires scheme and network location: nope' },
      {
        type: 'int_from_float',
        loc: ['authority_cert_serial_number'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
      },
    ]);
  });
});
