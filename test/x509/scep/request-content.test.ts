/**
 * The contents SCEP requests carry besides a PKCS#10 (RFC 8894 §3.3.3, §3.3.4) and the PKCS#10's
 * challengePassword (RFC 2985 §5.4.1), read from structures openssl wrote: the IssuerAndSerialNumber of
 * an `openssl cms` RecipientInfo, and CSRs with the challenge in each string type openssl can be made
 * to choose (asn1parse confirms which one it chose).
 */
import { parseCertificate } from '../../../lib/x509/certificate';
import { tlv } from '../../../lib/x509/der-writer';
import { X509Error } from '../../../lib/x509/errors';
import { readTlv, readTlvChildren } from '../../../lib/x509/tlv';
import { challengePassword, readIssuerAndSerial, readIssuerAndSubject } from '../../../lib/x509/scep';
import { type Fixtures, makeFixtures } from './fixtures';

let fx: Fixtures;
beforeAll(() => {
  fx = makeFixtures();
});
afterAll(() => fx.cleanup());

/** The rid (IssuerAndSerialNumber) that `openssl cms -encrypt` wrote for `recipientPem`. */
function opensslIssuerAndSerial(recipientPem: string): Buffer {
  const der = fx.openssl(['cms', '-encrypt', '-binary', '-outform', 'DER', '-aes128', recipientPem], Buffer.from('x'));
  const children = (t: ReturnType<typeof readTlv>) => readTlvChildren(der, t);
  const envelopedData = children(children(children(readTlv(der, 0, der.length))[1])[0]);
  const rid = children(children(envelopedData[1])[0])[1];
  return der.subarray(rid.start, rid.end);
}

/** `openssl x509 -serial` of a PEM certificate, as the API writes serials (no leading zeros). */
const opensslSerial = (pem: string) =>
  fx
    .openssl(['x509', '-in', pem, '-noout', '-serial'])
    .toString()
    .trim()
    .replace('serial=', '')
    .replace(/^0+(?=.)/, '');

describe('readIssuerAndSerial (GetCert, GetCRL)', () => {
  test.each(['ra', 'device', 'ca'] as const)('the %s certificate as openssl names it in a RecipientInfo', (who) => {
    const read = readIssuerAndSerial(opensslIssuerAndSerial(fx[who].cert));
    expect(read.serial).toBe(opensslSerial(fx[who].cert));
    expect(read.issuer).toEqual(parseCertificate(fx[who].certDer).issuerDer);
  });

  test('a serial whose DER needs a leading zero octet, and small ones', () => {
    const issuer = parseCertificate(fx.ca.certDer).issuerDer;
    const read = (content: number[]) => readIssuerAndSerial(tlv(0x30, issuer, tlv(0x02, Buffer.from(content)))).serial;
    expect(read([0x00, 0xff])).toBe('FF');
    expect(read([0x5c, 0xe9])).toBe('5CE9');
    expect(read([0x01])).toBe('1');
    expect(read([0x00])).toBe('0');
  });

  test.each([
    ['trailing bytes', (i: Buffer, s: Buffer) => Buffer.concat([tlv(0x30, i, s), Buffer.from([0])])],
    ['one field', (i: Buffer) => tlv(0x30, i)],
    ['three fields', (i: Buffer, s: Buffer) => tlv(0x30, i, s, s)],
    ['a negative serial', (i: Buffer) => tlv(0x30, i, tlv(0x02, Buffer.from([0x80])))],
    ['an empty INTEGER', (i: Buffer) => tlv(0x30, i, tlv(0x02))],
    ['an issuer that is not a SEQUENCE', (_i: Buffer, s: Buffer) => tlv(0x30, tlv(0x31), s)],
    ['a SET instead of a SEQUENCE', (i: Buffer, s: Buffer) => tlv(0x31, i, s)],
  ])('%s: X509Error', (_what, make) => {
    const issuer = parseCertificate(fx.ca.certDer).issuerDer;
    expect(() => readIssuerAndSerial(make(issuer, tlv(0x02, Buffer.from([1]))))).toThrow(X509Error);
  });
});

describe('readIssuerAndSubject (CertPoll)', () => {
  test('the names come back as the exact DER slices', () => {
    const { issuerDer, subjectDer } = parseCertificate(fx.ra.certDer);
    expect(readIssuerAndSubject(tlv(0x30, issuerDer, subjectDer))).toEqual({ issuer: issuerDer, subject: subjectDer });
  });

  test('malformed: X509Error', () => {
    const { issuerDer } = parseCertificate(fx.ra.certDer);
    for (const bad of [
      tlv(0x30, issuerDer),
      tlv(0x30, issuerDer, tlv(0x02, Buffer.from([1]))),
      Buffer.from([0x30, 0x05]),
      Buffer.alloc(0),
    ]) {
      expect(() => readIssuerAndSubject(bad)).toThrow(X509Error);
    }
  });
});

describe('challengePassword', () => {
  /** A DER CSR with `challenge`, openssl choosing its string type under `mask`, and that type as asn1parse names it. */
  function csr(challenge: string | undefined, mask = 'utf8only'): { der: Buffer; type: string | undefined } {
    const config = fx.file(
      'req.cnf',
      [
        '[req]',
        'distinguished_name = dn',
        'attributes = attrs',
        'prompt = no',
        'utf8 = yes',
        `string_mask = ${mask}`,
        '[dn]',
        'CN = device',
      ]
        .concat(['[attrs]', ...(challenge === undefined ? [] : [`challengePassword = ${challenge}`])])
        .join('\n'),
    );
    const der = fx.openssl(['req', '-new', '-key', fx.device.key, '-config', config, '-outform', 'DER']);
    const parsed = fx.openssl(['asn1parse', '-inform', 'DER'], der).toString('latin1');
    const type = /:challengePassword\n.*\n.*prim: (\w+)/.exec(parsed)?.[1];
    return { der, type };
  }

  test.each([
    ['PRINTABLESTRING', 'pass-w0rd (1)', 'default'],
    ['UTF8STRING', 'Grüße, 密码', 'utf8only'],
    ['T61STRING', 'Nö', 'default'],
    ['BMPSTRING', '€uro', 'default'],
    ['IA5STRING', 'ia5-secret@x', 'MASK:0x10'],
  ])('%s', (type, challenge, mask) => {
    const made = csr(challenge, mask);
    expect(made.type).toBe(type);
    expect(challengePassword(made.der)).toBe(challenge);
  });

  test('none when the CSR has none', () => {
    expect(challengePassword(csr(undefined).der)).toBeUndefined();
  });

  test('a CSR that is not one: X509Error', () => {
    expect(() => challengePassword(Buffer.from('3003020100', 'hex'))).toThrow(X509Error);
  });
});
